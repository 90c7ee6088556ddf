#!/usr/bin/env node
// `ksctl --version` is what scripts call to probe for ksctl: answer it without loading the CLI.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
  const { VERSION } = await import('../dist/package-root.js');
  process.stdout.write(`${VERSION}\n`);
} else {
  const { main } = await import('../dist/bundle/main.js');
  await main();
}
