#!/usr/bin/env node
// CommonJS (bin/package.json), as is the bundle: Node starts its ES module loader only for a
// program that needs it, and a short command spends more on it than on its own work.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
  // `ksctl --version` is what scripts call to probe for ksctl: answer it without loading the CLI.
  process.stdout.write(`${require('../package.json').version}\n`);
} else {
  // The bundle loads with V8's code cache (code-cache.js).
  const { join } = require('node:path');
  require('./code-cache.js')
    .loadBundle(join(__dirname, '..', 'dist', 'bundle'), 'main.cjs')
    .main();
}
