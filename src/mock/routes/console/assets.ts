/**
 * The console's files, read from the package when a browser asks for them (never at start):
 *   GET /_mock/console/                      console/index.html
 *   GET /_mock/console/assets/<path>         console/assets/<path> (sub-folders too)
 * Only files with a known type are served, and nothing outside those folders: a path with `..`,
 * a backslash, an encoded slash or a hidden segment is not found.
 */
import { extname } from 'node:path';
import { packageFile } from '../../../common/package-root.js';

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

export interface Asset {
  bytes: Buffer;
  contentType: string;
}

const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

/** The package path of the file of `console/assets/` a request names, or undefined when none. */
function assetFile(relative: string): string | undefined {
  const segments = relative.split('/');
  if (segments.length > 8 || !segments.every((s) => SEGMENT.test(s) && !s.includes('..'))) {
    return undefined;
  }
  return ['console', 'assets', ...segments].join('/');
}

async function read(file: string | undefined): Promise<Asset | undefined> {
  if (file === undefined) return undefined;
  const contentType = TYPES[extname(file).toLowerCase()];
  if (contentType === undefined) return undefined;
  try {
    return { bytes: await packageFile(file), contentType };
  } catch {
    return undefined;
  }
}

/** The page itself. */
export const indexPage = (): Promise<Asset | undefined> => read('console/index.html');

/** A file under console/assets/. */
export const asset = (relative: string): Promise<Asset | undefined> => read(assetFile(relative));
