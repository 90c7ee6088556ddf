// node:fs, not node:fs/promises: this module is in every command's start (see scripts/bundle.js).
import { existsSync, readFile, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { getAsset, isSea } from 'node:sea';

/**
 * Whether this is the single executable (`npm run build:sea`): the package's files are then its
 * assets, under their paths in the package (`package.json`, `console/index.html`, ...), and there
 * is no package folder on the machine.
 */
export const IN_EXECUTABLE = isSea();

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

/**
 * The package's folder; in the single executable, the executable's own folder, where nothing of
 * the package is: read the package's files with packageFile().
 */
export const PACKAGE_ROOT = IN_EXECUTABLE ? dirname(process.execPath) : findPackageRoot();

/** An asset of the single executable, or undefined when it holds none by that name. */
function assetBytes(relative: string): Buffer | undefined {
  try {
    return Buffer.from(getAsset(relative));
  } catch {
    return undefined;
  }
}

/** A text asset of the single executable (UTF-8), or undefined outside it or when it has none. */
export function executableText(relative: string): string | undefined {
  return IN_EXECUTABLE ? assetBytes(relative)?.toString('utf8') : undefined;
}

/**
 * A file of the package by its path in the package ('/'-separated, as `console/index.html`): from
 * the package folder, or from the single executable's assets. Rejects as a missing file does
 * (code ENOENT) when there is none.
 */
export async function packageFile(relative: string): Promise<Buffer> {
  if (!IN_EXECUTABLE) {
    const file = join(PACKAGE_ROOT, ...relative.split('/'));
    return new Promise((resolve, reject) =>
      readFile(file, (error, bytes) => (error ? reject(error) : resolve(bytes))),
    );
  }
  const bytes = assetBytes(relative);
  if (bytes !== undefined) return bytes;
  throw Object.assign(new Error(`the executable holds no ${relative}`), { code: 'ENOENT' });
}

export const VERSION: string = (
  JSON.parse(
    IN_EXECUTABLE
      ? getAsset('package.json', 'utf8')
      : readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8'),
  ) as { version: string }
).version;
