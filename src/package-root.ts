import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The installed package's folder (where package.json, examples/ and schema/ are), found by walking
 * up from this module: it runs from src/ in tests, from dist/ and from the dist/bundle/ chunks.
 */
function findPackageRoot(): string {
  // import.meta.dirname: the bundle's CommonJS chunks make it __dirname (no URL to convert).
  let dir = import.meta.dirname;
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'ksctl'
    ) {
      return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the ksctl package folder');
    dir = parent;
  }
}

export const PACKAGE_ROOT = findPackageRoot();

export const VERSION: string = (
  JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;
