// `npm run check`: the type checks (the code's, and the console's browser code's), ESLint and
// Prettier's format check. Together they are over a minute of one core's work on a fresh clone,
// so they run side by side, and each keeps a cache under node_modules/.cache/ksctl-check (what
// did not change since the last run is not checked again; each tool checks its own cache against
// the files, its version and its settings). Each tool's output is printed whole once it ends, in
// a fixed order; the exit code is the first failure's, 0 when all pass.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const CACHE = join('node_modules', '.cache', 'ksctl-check');

/** The file of a package's command, as its package.json names it. */
function bin(pkg, command) {
  const manifest = require.resolve(`${pkg}/package.json`);
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8'));
  return join(dirname(manifest), typeof bin === 'string' ? bin : bin[command]);
}

const TOOLS = [
  {
    name: 'typecheck',
    argv: [
      bin('typescript', 'tsc'),
      ...['-p', 'tsconfig.json', '--noEmit', '--incremental'],
      ...['--tsBuildInfoFile', join(CACHE, 'typecheck.tsbuildinfo')],
    ],
  },
  {
    // The console's browser code: JSDoc-typed ES modules, against the DOM and the wire types.
    name: 'typecheck console',
    argv: [
      bin('typescript', 'tsc'),
      ...['-p', join('console', 'tsconfig.json'), '--incremental'],
      ...['--tsBuildInfoFile', join(CACHE, 'typecheck-console.tsbuildinfo')],
    ],
  },
  {
    name: 'eslint',
    argv: [
      bin('eslint', 'eslint'),
      ...['--cache', '--cache-strategy', 'content', '--cache-location', join(CACHE, 'eslint')],
      '.',
    ],
  },
  {
    name: 'prettier',
    argv: [
      bin('prettier', 'prettier'),
      ...['--cache', '--cache-location', join(CACHE, 'prettier')],
      ...['--check', '.'],
    ],
  },
];

function run({ name, argv }) {
  return new Promise((resolve) => {
    const started = Date.now();
    // Four processes on few cores: V8's garbage collector on one thread each costs less in all.
    const child = spawn(process.execPath, ['--single-threaded-gc', ...argv], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    const end = (code, text) => resolve({ name, code, ms: Date.now() - started, output, text });
    child.once('error', (error) => end(1, `${error.message}\n`));
    child.once('close', (code, signal) => end(code ?? (signal ? 1 : 0)));
  });
}

const results = await Promise.all(TOOLS.map(run));
let exitCode = 0;
for (const { name, code, ms, output, text = '' } of results) {
  const said = Buffer.concat(output).toString('utf8') + text;
  const outcome = code === 0 ? 'ok' : `failed (exit ${code})`;
  process.stdout.write(`> ${name}: ${outcome}, ${(ms / 1000).toFixed(1)} s\n`);
  if (said.trim() !== '') process.stdout.write(said.endsWith('\n') ? said : `${said}\n`);
  if (code !== 0 && exitCode === 0) exitCode = code;
}
process.exitCode = exitCode;
