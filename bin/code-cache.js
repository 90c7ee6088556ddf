// Loads the CLI's bundle (dist/bundle/*.cjs) with V8's code cache. Compiling the bundle's files is
// a fifth of a short command's time: parsing them as they load, and compiling each function as it
// first runs. V8 can save what it compiled (Node 20 has no built-in cache for user code: vm.Script
// `cachedData` is the way), so the first run of a kind of command writes the compiled code of each
// file it loaded next to the user's other caches, and later runs read it back instead.
//
// A cache file is used only for the exact bundle file, Node and V8 it was made with (all three
// head the file: the bundle file by its SHA-256, which the build lists in hashes.json, with its
// size and modification time, so an edit after the build counts as another file), and V8 itself
// refuses data made under other flags. Hashing the chunks at start would load node:crypto, which
// costs a short command more than its request. A cache is written
// atomically (a temporary file renamed over it) and is never needed: when it is missing, corrupt,
// from another version or cannot be written, the bundle loads as it would without it.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');

const FORMAT = 'ksctl-code-cache/1';
/** The longest header a cache file may have (see headerOf). */
const HEADER_LIMIT = 4096;
/** The kinds of run a file's code is gathered from; past this, a cache is no longer extended. */
const MAX_RUN_KINDS = 32;
/**
 * V8 refuses cached data made under other flags. The CLI sets one while it runs
 * (src/client/api/transport.ts: --liftoff-only, and what it implies); the caches are made with V8's flags
 * put back as they were at start.
 */
const FLAGS_AT_START = '--no-liftoff-only --wasm-tier-up --wasm-dynamic-tiering';

// The module's class, as `module.constructor`: require('node:module') would load Node 20's ES
// module loader with it (test/e2e/startup.test.ts). In the single executable's main script
// (scripts/sea/main.cjs), this file is bundled and `module` is the bundler's plain object.
const Module =
  module.constructor !== Object && typeof module.constructor === 'function'
    ? module.constructor
    : require('node:module');

/**
 * The directory caches go in: KSCTL_CACHE_DIR (empty: no cache), else the platform's cache
 * directory for ksctl, as env-paths names it. Without a home directory there is no cache (finding
 * one without HOME would load node:os, which a short command otherwise does without).
 */
function cacheDirectory(env) {
  if (env.KSCTL_CACHE_DIR !== undefined) {
    return env.KSCTL_CACHE_DIR === '' ? undefined : path.resolve(env.KSCTL_CACHE_DIR);
  }
  const home = process.platform === 'win32' ? env.USERPROFILE : env.HOME;
  if (!home) return undefined;
  switch (process.platform) {
    case 'darwin':
      return path.join(home, 'Library', 'Caches', 'ksctl');
    case 'win32':
      return path.join(env.LOCALAPPDATA || path.join(home, 'AppData', 'Local'), 'ksctl', 'Cache');
    default: {
      const xdg = env.XDG_CACHE_HOME;
      return xdg && path.isAbsolute(xdg)
        ? path.join(xdg, 'ksctl')
        : path.join(home, '.cache', 'ksctl');
    }
  }
}

/**
 * The kind of run, as far as the code it compiles goes: the command's first words, and whether it
 * asks for help. A cache holds the code of every kind of run that has used it, so `ksctl --help`
 * run first does not leave `ksctl markings list` compiling its own functions on every call.
 */
function runKind(args) {
  const words = args.filter((arg) => !arg.startsWith('-')).slice(0, 2);
  const help = args.some((arg) => arg === '--help' || arg === '-h') || words[0] === 'help';
  return [...words, ...(help ? ['--help'] : [])].join('/').replace(/[^\w/.-]/g, '_') || '-';
}

/** Tells whether V8's flags are what they were when the loader started (V8 checks its data with them). */
function flagsProbe() {
  const source = (n) => `"ksctl flags probe ${String(n).padStart(6, '0')}"`;
  const data = new vm.Script(source(0)).createCachedData();
  let checks = 0;
  // Each check compiles a new source of the same length: V8 would take a source it has seen from
  // its own compilation cache, without looking at the data.
  return () => !new vm.Script(source(++checks), { cachedData: data }).cachedDataRejected;
}

const sha256 = (...parts) => {
  const hash = require('node:crypto').createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest('hex');
};

/**
 * The cache folder's name for one installed copy: 16 hex digits of the bundle directory's path
 * (two 32-bit FNV-1a hashes). Only a name: each file in it is checked against its bundle file.
 */
function folderName(bundleDir) {
  let low = 0x811c9dc5;
  let high = 0x050c5d1f;
  for (let i = 0; i < bundleDir.length; i++) {
    const code = bundleDir.charCodeAt(i);
    low = Math.imul(low ^ code, 0x01000193) >>> 0;
    high = Math.imul(high ^ code, 0x01000193) >>> 0;
  }
  return high.toString(16).padStart(8, '0') + low.toString(16).padStart(8, '0');
}

/** The SHA-256 of each bundle file, as the build listed them (none when the list is unreadable). */
function buildHashes(files) {
  try {
    const hashes = JSON.parse(files.read('hashes.json').source);
    return hashes !== null && typeof hashes === 'object' ? hashes : {};
  } catch {
    return {};
  }
}

/**
 * What a bundle file is, for its cache: its SHA-256 (listed by the build, else computed), size and
 * modification time. One field, without spaces.
 */
function fileIdentity(name, source, stats, hashes) {
  const listed = hashes[name];
  const hash =
    typeof listed === 'string' && /^[0-9a-f]{64}$/.test(listed) ? listed : sha256(source);
  return `${hash}:${stats.size}:${Math.trunc(stats.mtimeMs)}`;
}

/** A file's bytes and what stat says of them, from one open file (no change slips in between). */
function readWithStats(file) {
  const fd = fs.openSync(file, 'r');
  try {
    const stats = fs.fstatSync(fd);
    // The build keeps the chunks ASCII (scripts/bundle.js checks): read as one-byte text, the
    // quickest string V8 makes of a file.
    return { source: fs.readFileSync(fd, 'latin1'), stats };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Where the bundle's files are read from: `read(name)` gives a file's text (latin1) and its size
 * and modification time, `exists(name)` whether the bundle has it. The npm package's are files
 * in its folder; the single executable's are its assets (scripts/sea/main.cjs).
 */
const diskFiles = (bundleDir) => ({
  read: (name) => readWithStats(path.join(bundleDir, name)),
  exists: (name) => fs.existsSync(path.join(bundleDir, name)),
  // Modules outside the bundle (yaml, and undici's files left in node_modules) come from here.
  modulePaths: Module._nodeModulePaths(bundleDir),
});

/**
 * What heads a cache file, space-separated: the format, the Node, V8 and processor it was made
 * with, the bundle file's identity (fileIdentity), and (last) the kinds of run it holds the code of.
 */
const headerOf = (identity) => [
  FORMAT,
  process.version,
  process.versions.v8,
  process.arch,
  identity,
];

/** Reads a cache file: its V8 data and the kinds of run it holds, if it was made for `header`. */
function readCache(file, header) {
  let bytes;
  try {
    bytes = fs.readFileSync(file);
  } catch {
    return undefined;
  }
  const end = bytes.subarray(0, HEADER_LIMIT).indexOf(10);
  if (end < 0) return undefined;
  const fields = bytes.subarray(0, end).toString('latin1').split(' ');
  if (fields.length !== header.length + 1 || header.some((field, i) => fields[i] !== field)) {
    return undefined;
  }
  return { data: bytes.subarray(end + 1), kinds: fields[header.length].split(',') };
}

/**
 * Loads the bundle's entry `entry` from `bundleDir` and what it requires of the bundle, with the
 * code cache of `env` (see cacheDirectory). Returns the entry's exports.
 */
function loadBundle(
  bundleDir,
  entry,
  env = process.env,
  args = process.argv.slice(2),
  files = diskFiles(bundleDir),
) {
  const root = cacheDirectory(env);
  // One folder per installed copy of ksctl: two copies neither share nor prune each other's files.
  const dir = root && path.join(root, 'code', folderName(bundleDir));
  const kind = runKind(args);
  const sameFlags = dir ? flagsProbe() : () => false;
  const hashes = dir ? buildHashes(files) : {};
  const toWrite = [];

  function loadChunk(file) {
    const known = Module._cache[file];
    if (known) return known.exports;
    const mod = new Module(file, undefined);
    mod.filename = file;
    mod.paths = files.modulePaths;
    Module._cache[file] = mod;
    const { source, stats } = files.read(path.basename(file));
    // A file loaded after the CLI changed V8's flags could neither use a cache nor make one that
    // a later run could use.
    const cacheable = dir !== undefined && sameFlags();
    const header = cacheable
      ? headerOf(fileIdentity(path.basename(file), source, stats, hashes))
      : [];
    const cacheFile = cacheable ? path.join(dir, `${path.basename(file)}.cache`) : '';
    const cached = cacheable ? readCache(cacheFile, header) : undefined;
    const script = new vm.Script(
      `(function (exports, require, module, __filename, __dirname) { ${source}\n})`,
      { filename: file, cachedData: cached?.data },
    );
    if (cacheable) {
      const used = cached !== undefined && !script.cachedDataRejected;
      const kinds = used ? cached.kinds : [];
      if (!kinds.includes(kind) && kinds.length < MAX_RUN_KINDS) {
        toWrite.push({ script, cacheFile, header, kinds: [...kinds, kind] });
      }
    }
    const chunkRequire = (id) =>
      id.startsWith('./') && id.endsWith('.cjs')
        ? loadChunk(path.join(bundleDir, id))
        : mod.require(id);
    try {
      script.runInThisContext()(mod.exports, chunkRequire, mod, file, bundleDir);
    } catch (error) {
      // As require() does: a file that failed to load is tried again by the next require.
      delete Module._cache[file];
      throw error;
    }
    mod.loaded = true;
    return mod.exports;
  }

  if (dir) {
    process.once('exit', () => {
      // After the command: the cache then holds every function this run compiled.
      if (toWrite.length > 0) writeCaches(dir, files, toWrite, sameFlags);
    });
  }
  return loadChunk(path.join(bundleDir, entry));
}

/** Writes the caches of this run; any failure leaves the cache as it was, and says nothing. */
function writeCaches(dir, files, toWrite, sameFlags) {
  try {
    if (!sameFlags()) {
      require('node:v8').setFlagsFromString(FLAGS_AT_START);
      if (!sameFlags()) return;
    }
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    for (const { script, cacheFile, header, kinds } of toWrite) {
      const temp = `${cacheFile}.${process.pid}.tmp`;
      try {
        // Opened before the data is made: an unwritable directory costs no serialization.
        const fd = fs.openSync(temp, 'wx', 0o600);
        try {
          fs.writeFileSync(fd, `${[...header, kinds.join(',')].join(' ')}\n`);
          fs.writeFileSync(fd, script.createCachedData());
        } finally {
          fs.closeSync(fd);
        }
        fs.renameSync(temp, cacheFile);
      } catch {
        fs.rmSync(temp, { force: true });
      }
    }
    // Files of chunks no longer in the bundle (an upgrade renames them) go, and so do temporary
    // files an hour old (of a process killed as it wrote).
    for (const name of fs.readdirSync(dir)) {
      const file = path.join(dir, name);
      const gone = name.endsWith('.cache')
        ? !files.exists(name.slice(0, -'.cache'.length))
        : name.endsWith('.tmp') && Date.now() - fs.statSync(file).mtimeMs > 3_600_000;
      if (gone) fs.rmSync(file, { force: true });
    }
  } catch {
    // The cache only saves time.
  }
}

module.exports = { loadBundle, cacheDirectory, runKind };
