/**
 * Where the Ionic tools keep profile files when no path is given: `<home>/.ionicsecurity/`
 * with `profiles.pt`, `profiles.pw` or `profiles.aesgcm` (the `ionic-profiles` tool; the SDK
 * samples use the same paths). On Windows the tool builds `%HOMEDRIVE%%HOMEPATH%\.ionicsecurity\`,
 * which is the home directory. (The Windows-only DPAPI "default" persistor is not supported.)
 */
import path from 'node:path';
import type { PersistorKind } from './types.js';

export const PERSISTOR_DIR_NAME = '.ionicsecurity';

export const PERSISTOR_FILE_NAMES: Readonly<Record<PersistorKind, string>> = {
  plaintext: 'profiles.pt',
  password: 'profiles.pw',
  aesgcm: 'profiles.aesgcm',
};

export function defaultPersistorPath(
  kind: PersistorKind,
  homeDir: string,
  platform: NodeJS.Platform = process.platform,
): string {
  const paths = platform === 'win32' ? path.win32 : path.posix;
  return paths.join(homeDir, PERSISTOR_DIR_NAME, PERSISTOR_FILE_NAMES[kind]);
}
