/**
 * The console's files, read from the package when a browser asks for them (never at start):
 *   GET /_mock/console/                      console/index.html
 *   GET /_mock/console/assets/<path>         console/assets/<path> (sub-folders too)
 *   GET /_mock/console/assets/vendor/<name>  a file of an installed library (VENDOR below)
 * Only files with a known type are served, and nothing outside those folders: a path with `..`,
 * a backslash, an encoded slash or a hidden segment is not found.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { extname, join } from 'node:path';
import { PACKAGE_ROOT } from '../../package-root.js';

/** The console's folder in the installed package. */
export const CONSOLE_DIR = join(PACKAGE_ROOT, 'console');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * Library files the pages load, by the name they ask for under assets/vendor/, each resolved in
 * the installed package (a dependency of ksctl, so it is there wherever ksctl is installed).
 */
export const VENDOR: Readonly<Record<string, string>> = {
  'uPlot.iife.min.js': 'uplot/dist/uPlot.iife.min.js',
  'uPlot.min.css': 'uplot/dist/uPlot.min.css',
};

export interface Asset {
  bytes: Buffer;
  contentType: string;
}

const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

/** The file of `console/assets/` a request names, or undefined when it names none. */
function assetFile(relative: string): string | undefined {
  const segments = relative.split('/');
  if (segments.length > 8 || !segments.every((s) => SEGMENT.test(s) && !s.includes('..'))) {
    return undefined;
  }
  return join(CONSOLE_DIR, 'assets', ...segments);
}

let requireFromPackage: NodeJS.Require | undefined;

function vendorFile(name: string): string | undefined {
  const specifier = Object.hasOwn(VENDOR, name) ? VENDOR[name] : undefined;
  if (specifier === undefined) return undefined;
  requireFromPackage ??= createRequire(join(PACKAGE_ROOT, 'package.json'));
  try {
    return requireFromPackage.resolve(specifier);
  } catch {
    return undefined;
  }
}

async function read(file: string | undefined): Promise<Asset | undefined> {
  if (file === undefined) return undefined;
  const contentType = TYPES[extname(file).toLowerCase()];
  if (contentType === undefined) return undefined;
  try {
    return { bytes: await readFile(file), contentType };
  } catch {
    return undefined;
  }
}

/** The page itself. */
export const indexPage = (): Promise<Asset | undefined> => read(join(CONSOLE_DIR, 'index.html'));

/** A file under assets/: `vendor/<name>` or a path of console/assets/. */
export function asset(relative: string): Promise<Asset | undefined> {
  if (relative.startsWith('vendor/')) return read(vendorFile(relative.slice('vendor/'.length)));
  return read(assetFile(relative));
}
