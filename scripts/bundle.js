// Bundles the CLI into dist/bundle with rolldown. A short command's time is mostly Node loading
// code, and every file costs on top of its size (resolving, reading, compiling and linking: about
// a millisecond each on a small machine), so the chunks are laid out by hand:
//
//   main.cjs          everything `ksctl` loads before it runs a command: commander, the program
//                     with every command's definition, the output module. Enough for --help.
//   net-*.cjs         what a markings command adds: configuration, the HTTP client (undici), the
//                     markings API and the markings/values actions. `markings list` is these two
//                     files (and rolldown's small runtime of CommonJS helpers, kept apart by it).
//   keygen-*.cjs      the device key generation alone (src/client/enroll/device-keys.ts, rsa-keygen.ts,
//                     prime-search.ts): `ksctl enroll` starts its prime search after loading
//                     main.cjs and this, and loads the network chunk and the rest while it runs.
//   everything else   one chunk per lazily loaded command or heavy module (mock server, enrollment,
//                     apply, profiles, prompts), split by rolldown as it sees fit.
//   crypto-worker.js  the mock's crypto threads, built on their own as an ES module
//                     (crypto-pool.ts finds the file next to the chunks at run time).
//
// esbuild (used before) and rolldown's automatic splitting both give each set of lazy imports
// that reach a module its own chunk: about 30 files for `markings list`, most under 2 KB.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { rolldown } from 'rolldown';

/**
 * `--standalone`: the bundle of the single executable (scripts/build-sea.js), in dist/sea/bundle:
 * the same chunks with nothing left outside them (yaml and undici's rarely used files come in,
 * as there is no node_modules beside an executable), and the crypto worker as a CommonJS script
 * (the executable starts it from its text).
 */
const STANDALONE = process.argv.includes('--standalone');
const OUT_DIR = STANDALONE ? 'dist/sea/bundle' : 'dist/bundle';

/**
 * The modules of the `net` chunk (module ids are absolute paths; undici's are CommonJS files). The
 * lock file mechanism stays out: only profile writers and the mock's state take locks, and it
 * would load node:os and node:timers/promises with every markings command. Enrollment's wire
 * constants (the portal's header names, a few hundred bytes) come in: in a chunk of their own
 * they would be one file more for `ksctl enroll`, which loads this chunk anyway.
 */
const NETWORK_PATH =
  /[\\/]src[\\/]client[\\/](api|config|output|markings)[\\/]|[\\/]src[\\/]common[\\/](http[\\/]|text[\\/](words|wrap)\.ts$|markings[\\/](wire|filters|names)\.ts$|enrollment[\\/]wire\.ts$)|[\\/]src[\\/]common[\\/]files[\\/](?!(file-lock|yaml-within|process-identity)\.ts$)|[\\/]src[\\/]client[\\/]cli[\\/]commands[\\/](markings|values)-actions\.ts$|[\\/]node_modules[\\/]undici[\\/]|^\0stand-in:/;

/** The modules of the `keygen` chunk: what `ksctl enroll` needs to start its prime searches. */
const KEY_GENERATION =
  /[\\/]src[\\/](client[\\/]enroll[\\/]device-keys|common[\\/]enrollment[\\/](rsa-keygen|prime-search))\.ts$/;

/**
 * The modules of the `enrollment` chunk: the protocol, the profile files and their formats, the
 * lock file. Split by who imports them they were eleven files for `ksctl enroll`, most under
 * 5 KB; one file is what enrollment, the profiles commands and the device commands load.
 */
const ENROLLMENT =
  /[\\/]src[\\/](client[\\/](profiles[\\/]|enroll[\\/](endpoints|protocol|registration|portal|token-sources)\.ts$|usecases[\\/](enrollment-run|enroll-device)\.ts$)|common[\\/](enrollment[\\/](auth|causes|crypto|keyspace|device-id)\.ts$|encoding[\\/](base64|gcm-envelope)\.ts$|files[\\/]file-lock\.ts$))/;

const nodeModules = createRequire(import.meta.url);

/**
 * What dependencies load as they are imported but use only on paths ksctl never or rarely takes:
 * each costs a millisecond or more of every command. The importing file gets a stand-in that
 * loads the real module when it is first used. test/e2e/startup.test.ts checks that markings list
 * loads none of these built-ins.
 */
const STAND_INS = [
  {
    // undici's HTTP/2 client: used only on a connection that negotiates h2, which undici offers
    // only with allowH2 (ksctl speaks HTTP/1.1). As it is imported it compiles 20 KB and loads
    // node:http2 and node:tls for their constants, 10-30 ms.
    source: './client-h2.js',
    importer: /undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/,
    contents: `module.exports = (...args) => require(${JSON.stringify(nodeModules.resolve('undici/lib/dispatcher/client-h2.js'))})(...args);`,
  },
  {
    // commander spawns executable subcommands with it; ksctl has none.
    source: 'node:child_process',
    importer: /commander[\\/]lib[\\/]command\.js$/,
    contents: `module.exports = new Proxy({}, { get: (_, key) => require('node:child_process')[key] });`,
  },
  {
    // undici's Client takes Node's --max-http-header-size (http.maxHeaderSize) for its header cap
    // and reads it as the module loads: node:http, its client and server, loaded for one number
    // (2-3 ms). It is 16 KiB unless set on Node's command line or in NODE_OPTIONS.
    source: 'node:http',
    importer: /undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/,
    contents: `const options = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\\s+/)];
module.exports = options.some((option) => option.startsWith('--max-http-header-size'))
  ? require('node:http')
  : { maxHeaderSize: 16 * 1024 };`,
  },
  {
    // undici's util.js lets go of an IncomingMessage's socket as it destroys one given as a request
    // body; ksctl sends strings and buffers, never an IncomingMessage.
    source: 'node:http',
    importer: /undici[\\/]lib[\\/]core[\\/]util\.js$/,
    contents: `module.exports = { IncomingMessage: class IncomingMessage {} };`,
  },
  {
    // The configuration and file helpers of the network chunk use it only to write files (their
    // reads use node:fs): loading it loads readline, file watchers and directory streams too.
    source: 'node:fs/promises',
    importer: /[\\/]src[\\/](client[\\/]config|common[\\/]files)[\\/]/,
    contents: `module.exports = new Proxy({}, { get: (_, key) => require('node:fs/promises')[key] });`,
  },
  {
    // undici checks its invariants with assert(value) on every request; node:assert (and its
    // error formatting) is needed only when one fails.
    source: 'node:assert',
    importer: /undici[\\/]lib[\\/]/,
    contents: `const load = () => require('node:assert');
const assert = (value, message) => {
  if (!value) load()(value, message);
};
module.exports = new Proxy(assert, { get: (target, key) => (key in target ? target[key] : load()[key]) });`,
  },
];

/**
 * Modules of undici a request of ksctl's never runs, required from node_modules if one ever does,
 * not compiled into every command's chunk (V8 pre-parses all of a file's code as it loads it).
 * Each is self-contained data or takes nothing of the bundled client's state.
 */
const LEFT_IN_NODE_MODULES = [
  {
    // llhttp compiled without SIMD, a 72 KB string, for processors without WebAssembly SIMD.
    source: '../llhttp/llhttp-wasm.js',
    importer: /undici[\\/]lib[\\/]dispatcher[\\/]client-h1\.js$/,
    id: 'undici/lib/llhttp/llhttp-wasm.js',
  },
  {
    // fetch's body extraction, for FormData request bodies (ksctl sends strings), and with it
    // 100 KB of fetch, WebIDL and multipart code.
    source: '../web/fetch/body.js',
    importer: /undici[\\/]lib[\\/]dispatcher[\\/]client-h[12]\.js$/,
    id: 'undici/lib/web/fetch/body.js',
  },
];

const matches = (source, importer) => (entry) =>
  entry.source === source && entry.importer.test(importer);

/** One module per stand-in (two may stand in for the same module, each for its importer). */
const standInId = (index) => `\0stand-in:${index}:${STAND_INS[index].source}`;

const standIns = {
  name: 'stand-ins',
  resolveId(source, importer) {
    if (importer === undefined || importer.startsWith('\0stand-in:')) return null;
    const left = STANDALONE ? undefined : LEFT_IN_NODE_MODULES.find(matches(source, importer));
    if (left) return { id: left.id, external: true };
    const standIn = STAND_INS.findIndex(matches(source, importer));
    return standIn >= 0 ? standInId(standIn) : null;
  },
  load(id) {
    return STAND_INS.find((_, index) => id === standInId(index))?.contents ?? null;
  },
};

const input = {
  platform: 'node',
  // Loaded from node_modules at run time (an ES module import gives its named exports).
  external: STANDALONE ? [] : ['yaml'],
  // The sources import each other as './x.js' (NodeNext); the files are x.ts.
  resolve: { extensionAlias: { '.js': ['.ts', '.js'] } },
  plugins: [standIns],
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
  input: { main: 'src/client/cli/main.ts' },
  // Lets the entry's chunk be the `main` group below (it exports run and main all the same).
  preserveEntrySignatures: 'allow-extension',
});
await cli.write({
  dir: OUT_DIR,
  // CommonJS: loading ES modules costs Node more (its ES module loader, and per file), and the
  // bundle needs nothing of theirs; the .cjs names keep them CommonJS in this "type": "module"
  // package. import() of a chunk becomes require() in a promise, and so does that of a module
  // outside the bundle (yaml, node:os): bin/code-cache.js compiles the chunks with vm.Script,
  // where import() has no loader.
  format: 'cjs',
  dynamicImportInCjs: false,
  // ASCII source is a one-byte string to V8 (half the memory, faster to read and scan), and
  // without JSDoc a fifth smaller. Licence comments stay.
  charset: 'ascii',
  comments: { legal: true, annotation: false, jsdoc: false },
  entryFileNames: '[name].cjs',
  chunkFileNames: '[name]-[hash].cjs',
  codeSplitting: {
    groups: [
      // Every module the entry imports statically; the entry itself becomes this chunk.
      { name: 'main', tags: ['$initial'], priority: 2 },
      { name: 'net', test: NETWORK_PATH, priority: 1 },
      { name: 'keygen', test: KEY_GENERATION, priority: 1 },
      { name: 'enrollment', test: ENROLLMENT, priority: 0 },
      // The device client (src/client/device/): the keys commands and a bulk enrollment's checks load
      // it whole, rather than in seven files split by who else imports each part.
      { name: 'device', test: /[\\/]src[\\/](client|common)[\\/]device[\\/]/, priority: 0 },
    ],
  },
});
await cli.close();

// bin/code-cache.js runs each chunk with a require() of its own: one that loads chunks and
// modules, with none of require's properties, and no import().
for (const name of await readdir(OUT_DIR)) {
  let code = await readFile(join(OUT_DIR, name), 'utf8');
  // A licence comment may name its author in letters outside ASCII (undici's copy of the
  // formdata polyfill, in the standalone bundle): written as \u escapes, the comment reads the same.
  const ascii = code.replace(/\/\*![\s\S]*?\*\//g, (comment) =>
    comment.replace(/[^\x00-\x7f]/gu, (c) => `\\u{${c.codePointAt(0).toString(16)}}`),
  );
  if (ascii !== code) await writeFile(join(OUT_DIR, name), (code = ascii));
  const found = /\bimport\(|\brequire\.(resolve|cache|main|extensions)\b/.exec(code);
  if (found) throw new Error(`${name}: ${found[0]} does not work in the bundle's chunks`);
  // bin/code-cache.js reads the chunks as one-byte (latin1) text.
  const wide = /[^\x00-\x7f]/.exec(code);
  if (wide && name.endsWith('.cjs')) {
    throw new Error(`${name}: a character outside ASCII (${JSON.stringify(wide[0])}) in a chunk`);
  }
}

// The SHA-256 of each chunk, for bin/code-cache.js: checking a cache against the bundle then
// costs a read of this file instead of loading node:crypto and hashing the chunks at every start.
const hashes = {};
for (const name of (await readdir(OUT_DIR)).filter((file) => file.endsWith('.cjs')).sort()) {
  hashes[name] = createHash('sha256')
    .update(await readFile(join(OUT_DIR, name)))
    .digest('hex');
}
await writeFile(join(OUT_DIR, 'hashes.json'), `${JSON.stringify(hashes, null, 1)}\n`);

const worker = await rolldown({
  ...input,
  input: { 'crypto-worker': 'src/mock/model/enrollment/crypto-worker.ts' },
});
await worker.write(
  STANDALONE
    ? { dir: OUT_DIR, format: 'cjs', entryFileNames: '[name].cjs', codeSplitting: false }
    : { dir: OUT_DIR, format: 'es', codeSplitting: false },
);
await worker.close();
