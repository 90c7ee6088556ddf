// Bundles the CLI into dist/bundle with rolldown. A short command's time is mostly Node loading
// code, and every file costs on top of its size (resolving, reading, compiling and linking an ES
// module: about a millisecond each on a small machine), so the chunks are laid out by hand:
//
//   main.js          everything `ksctl` loads before it runs a command: commander, the program
//                    with every command's definition, the output module. Enough for --help.
//   net-*.js         what a markings command adds: configuration, the HTTP client (undici), the
//                    markings API and the markings/values actions. `markings list` is these two
//                    files (and rolldown's small runtime of CommonJS helpers, kept apart by it).
//   everything else  one chunk per lazily loaded command or heavy module (mock server, enrollment,
//                    apply, profiles, prompts), split by rolldown as it sees fit.
//   crypto-worker.js the mock's crypto threads, built on their own (crypto-pool.ts finds the file
//                    next to the chunks at run time).
//
// esbuild (used before) and rolldown's automatic splitting both give each set of lazy imports
// that reach a module its own chunk: about 30 files for `markings list`, most under 2 KB.
import { constants as http2Constants } from 'node:http2';
import { rm } from 'node:fs/promises';
import { rolldown } from 'rolldown';

const OUT_DIR = 'dist/bundle';

/** The modules of the `net` chunk (module ids are absolute paths; undici's are CommonJS files). */
const NETWORK_PATH =
  /[\\/]src[\\/](api|config|files|output)[\\/]|[\\/]src[\\/]cli[\\/]commands[\\/](markings|values)-actions\.ts$|[\\/]node_modules[\\/]undici[\\/]|^\0lazy:/;

/**
 * Node built-ins that dependencies load as they are imported but use only on paths ksctl never
 * or rarely takes; each costs 1-30 ms of every command. The importing file gets a stand-in that
 * loads the real module when it is first used. Keyed by the importing file; test/e2e/startup.test.ts
 * checks the built CLI does not load them.
 */
const LAZY_BUILTINS = [
  {
    // undici's HTTP/2 client loads node:http2 (and with it node:tls) for its constants, for a
    // protocol ksctl never negotiates (undici speaks HTTP/1.1 unless allowH2 is set). Its copy
    // gets the constants' values, taken here.
    builtin: 'node:http2',
    importer: /undici[\\/]lib[\\/]dispatcher[\\/]client-h2\.js$/,
    contents: `module.exports = {
  constants: ${JSON.stringify(http2Constants)},
  connect: (...args) => require('node:http2').connect(...args),
};`,
  },
  {
    // commander spawns executable subcommands with it; ksctl has none.
    builtin: 'node:child_process',
    importer: /commander[\\/]lib[\\/]command\.js$/,
    contents: `module.exports = new Proxy({}, { get: (_, key) => require('node:child_process')[key] });`,
  },
  {
    // undici checks its invariants with assert(value) on every request; node:assert (and its
    // error formatting) is needed only when one fails.
    builtin: 'node:assert',
    importer: /undici[\\/]lib[\\/]/,
    contents: `const load = () => require('node:assert');
const assert = (value, message) => {
  if (!value) load()(value, message);
};
module.exports = new Proxy(assert, { get: (target, key) => (key in target ? target[key] : load()[key]) });`,
  },
];

const lazyBuiltins = {
  name: 'lazy-builtins',
  resolveId(source, importer) {
    if (importer === undefined || importer.startsWith('\0lazy:')) return null;
    const lazy = LAZY_BUILTINS.find((l) => l.builtin === source && l.importer.test(importer));
    return lazy ? `\0lazy:${lazy.builtin}` : null;
  },
  load(id) {
    return LAZY_BUILTINS.find((l) => id === `\0lazy:${l.builtin}`)?.contents ?? null;
  },
};

const input = {
  platform: 'node',
  // Loaded from node_modules at run time (an ES module import gives its named exports).
  external: ['yaml'],
  // The sources import each other as './x.js' (NodeNext); the files are x.ts.
  resolve: { extensionAlias: { '.js': ['.ts', '.js'] } },
  plugins: [lazyBuiltins],
  // A bundler warning is a build failure: the layout above is only as good as its assumptions.
  onLog(level, log, defaultHandler) {
    // A lazy import of a module another lazily loaded chunk imports statically (store.ts's
    // import of directories.ts): it still loads late, from its chunk.
    if (log.code === 'INEFFECTIVE_DYNAMIC_IMPORT') return;
    defaultHandler(level === 'warn' ? 'error' : level, log);
  },
};

await rm(OUT_DIR, { recursive: true, force: true });

const cli = await rolldown({
  ...input,
  input: { main: 'src/cli/main.ts' },
  // Lets the entry's chunk be the `main` group below (it exports run and main all the same).
  preserveEntrySignatures: 'allow-extension',
});
await cli.write({
  dir: OUT_DIR,
  format: 'es',
  chunkFileNames: '[name]-[hash].js',
  codeSplitting: {
    groups: [
      // Every module the entry imports statically; the entry itself becomes this chunk.
      { name: 'main', tags: ['$initial'], priority: 2 },
      { name: 'net', test: NETWORK_PATH, priority: 1 },
    ],
  },
});
await cli.close();

const worker = await rolldown({
  ...input,
  input: { 'crypto-worker': 'src/mock/enrollment/crypto-worker.ts' },
});
await worker.write({ dir: OUT_DIR, format: 'es', codeSplitting: false });
await worker.close();
