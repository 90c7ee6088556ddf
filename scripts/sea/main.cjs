// The single executable's start (scripts/build-sea.js bundles this file with bin/code-cache.js
// into the executable's main script). The package's files are the executable's assets, under
// their paths in the package; the bundle's chunks are under bundle/. What bin/ksctl.js does for
// the npm package, from those: `--version` answered at once, else the bundle loaded, chunk by
// chunk as the command needs them, with V8's code cache in the user's cache folder.
'use strict';
const sea = require('node:sea');

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
  // Scripts probe for ksctl with it: the version first, then what this copy of it is.
  const { version } = JSON.parse(sea.getAsset('package.json', 'utf8'));
  process.stdout.write(
    `${version} (single executable, Node.js ${process.versions.node} ${process.platform}-${process.arch})\n`,
  );
} else {
  const path = require('node:path');
  const { loadBundle } = require('../../bin/code-cache.js');
  /** The asset's bytes without a copy, or undefined when the executable holds none by that name. */
  const raw = (key) => {
    try {
      return Buffer.from(sea.getRawAsset(key));
    } catch {
      return undefined;
    }
  };
  const files = {
    read(name) {
      const bytes = raw(`bundle/${name}`);
      if (bytes === undefined) {
        throw Object.assign(new Error(`the executable holds no bundle/${name}`), {
          code: 'ENOENT',
        });
      }
      // The build keeps the chunks ASCII: one-byte text. No modification time: the chunk's hash
      // (hashes.json) and size name it.
      return { source: bytes.toString('latin1'), stats: { size: bytes.length, mtimeMs: 0 } };
    },
    exists: (name) => raw(`bundle/${name}`) !== undefined,
    // Nothing is required from node_modules: a folder of them beside the executable is not read.
    modulePaths: [],
  };
  // Not a folder: the name the chunks run under (their __dirname), and the code cache's key.
  const bundleDir = path.join(process.execPath, 'bundle');
  loadBundle(bundleDir, 'main.cjs', process.env, args, files).main();
}
