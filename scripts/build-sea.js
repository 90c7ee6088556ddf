// `npm run build:sea` (after `npm run build`): dist/sea/ksctl, ksctl as one file for Linux x64 that
// needs no Node and no node_modules on the machine. A Node single executable application
// (https://nodejs.org/api/single-executable-applications.html) made from the pinned Node 24 of
// scripts/node-24.js:
//
//   1. the standalone bundle (scripts/bundle.js --standalone): the CLI's chunks with nothing
//      left in node_modules, and the crypto worker as a CommonJS script;
//   2. the executable's main script: scripts/sea/main.cjs with bin/code-cache.js, one file;
//   3. the preparation blob, made by that Node (`--experimental-sea-config`): the main script
//      with V8's code cache of it, and as assets every chunk (bundle/<name>), package.json, the
//      OpenAPI document (dist/openapi.json), the console (console/) and the examples
//      (examples/), each under its path in the package: new chunks and files come in by
//      themselves;
//   4. a copy of that Node with the blob injected by postject (the Node project's own tool).
//
// The completion scripts are not assets: `ksctl completion <shell>` writes them from the program,
// which the executable holds.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmod, copyFile, mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';
import { NODE_24, node24 } from './node-24.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist', 'sea');
const BUILD = join(OUT, 'build');
const EXECUTABLE = join(OUT, 'ksctl');
/** The fuse Node looks for to know it carries a blob (the Node documentation's value). */
const FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

const step = (text) => process.stderr.write(`build:sea: ${text}\n`);

/** Every file under `dir` (a path in the package), as package paths with '/'. */
async function filesUnder(dir) {
  const found = [];
  for (const entry of await readdir(join(ROOT, dir), { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    found.push(relative(ROOT, join(entry.parentPath, entry.name)).split(sep).join('/'));
  }
  return found.sort();
}

try {
  await stat(join(ROOT, 'dist', 'openapi.json'));
} catch {
  throw new Error('dist/openapi.json is missing: run npm run build first (npm run build:sea does)');
}
const node = node24();

step('bundling without node_modules (dist/sea/bundle)');
await rm(OUT, { recursive: true, force: true });
execFileSync(process.execPath, [join(ROOT, 'scripts', 'bundle.js'), '--standalone'], {
  cwd: ROOT,
  stdio: 'inherit',
});

step('the main script');
const main = await rolldown({
  input: join(ROOT, 'scripts', 'sea', 'main.cjs'),
  platform: 'node',
  onLog(level, log, defaultHandler) {
    defaultHandler(level === 'warn' ? 'error' : level, log);
  },
});
await main.write({ file: join(BUILD, 'main.cjs'), format: 'cjs', comments: { legal: true } });
await main.close();

const assets = {};
for (const name of await readdir(join(OUT, 'bundle'))) {
  assets[`bundle/${name}`] = join(OUT, 'bundle', name);
}
for (const file of [
  'package.json',
  'dist/openapi.json',
  ...(await filesUnder('console')),
  ...(await filesUnder('examples')),
]) {
  assets[file] = join(ROOT, file);
}

step(`the preparation blob: ${Object.keys(assets).length} assets, with Node ${NODE_24}`);
const blob = join(BUILD, 'sea-prep.blob');
const config = join(BUILD, 'sea-config.json');
await writeFile(
  config,
  `${JSON.stringify(
    {
      main: join(BUILD, 'main.cjs'),
      output: blob,
      disableExperimentalSEAWarning: true,
      // V8's code cache of the main script (the chunks have their own: bin/code-cache.js).
      useCodeCache: true,
      assets,
    },
    null,
    2,
  )}\n`,
);
execFileSync(node, ['--experimental-sea-config', config], { cwd: ROOT, stdio: 'ignore' });

step('injecting it into a copy of that Node (dist/sea/ksctl)');
await mkdir(OUT, { recursive: true });
await copyFile(node, EXECUTABLE);
await chmod(EXECUTABLE, 0o755);
// postject's own command: its ELF library writes a warning per note section it cannot name
// ("Can't find string offset for section name '.note...'"), harmless, and kept out of the output.
const injected = spawnSync(
  process.execPath,
  [
    createRequire(import.meta.url).resolve('postject/dist/cli.js'),
    ...[EXECUTABLE, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', FUSE],
  ],
  { encoding: 'utf8' },
);
// Its own lines (the start, the end) are colored chatter: shown only when it fails.
const said = `${injected.stdout}${injected.stderr}`
  .split('\n')
  .filter(
    (line) =>
      line.trim() !== '' &&
      !/^warning: Can't find string offset for section name '\.note/.test(line),
  )
  .join('\n');
if (injected.status !== 0) throw new Error(`postject failed (exit ${injected.status}):\n${said}`);

const { size } = await stat(EXECUTABLE);
step(`done: dist/sea/ksctl, ${(size / 2 ** 20).toFixed(1)} MiB`);
