#!/usr/bin/env node
/**
 * A test suite's mocks, run as one process: `--files N` files one after another, each starting
 * its own mock, asking it one question (List Markings with the dev token) and stopping it, as a
 * test file's beforeAll and afterAll would. `--mode library` starts each with startMock() of
 * ksctl/mock (the built dist/client/lib/mock.js); `--mode serve` spawns `ksctl mock serve --port 0 --json`
 * per file, reads where it listens from its first line and stops it with SIGTERM.
 * Prints {files, firstAnswerMs: [per file: start to the first answer], totalMs}.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startMock } from '../../dist/client/lib/mock.js';

const BIN = new URL('../../bin/ksctl.js', import.meta.url).pathname;
const { values } = parseArgs({
  options: { mode: { type: 'string' }, files: { type: 'string', default: '1' } },
});
const files = Number(values.files);
if (!['library', 'serve'].includes(values.mode) || !Number.isInteger(files) || files < 1) {
  throw new Error('usage: library-suite.js --mode library|serve [--files N]');
}

async function firstAnswer(info) {
  const response = await fetch(`${info.baseUrl}/markings?valueLimit=0`, {
    headers: { authorization: `Bearer ${info.token}` },
  });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`the mock answered ${response.status}`);
}

async function withLibraryMock() {
  const started = performance.now();
  const mock = await startMock();
  await firstAnswer(mock);
  const ms = performance.now() - started;
  await mock.close();
  return ms;
}

/** `ksctl mock serve` in its own process, as a suite without the library would run it. */
async function withServedMock(configDir) {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [BIN, 'mock', 'serve', '--port', '0', '--json', '--no-context', '--no-log'],
    {
      env: { ...process.env, KSCTL_CONFIG_DIR: configDir, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const info = await new Promise((resolve, reject) => {
    let text = '';
    child.stdout.on('data', (chunk) => {
      text += chunk;
      const end = text.indexOf('\n');
      if (end >= 0) resolve(JSON.parse(text.slice(0, end)));
    });
    child.once('exit', (code) => reject(new Error(`mock serve exited with ${code}`)));
  });
  await firstAnswer(info);
  const ms = performance.now() - started;
  child.kill('SIGTERM');
  await exited;
  return ms;
}

const configDir = await mkdtemp(join(tmpdir(), 'ksctl-bench-suite-'));
try {
  const begun = performance.now();
  const firstAnswerMs = [];
  for (let i = 0; i < files; i++) {
    firstAnswerMs.push(
      values.mode === 'library' ? await withLibraryMock() : await withServedMock(configDir),
    );
  }
  const totalMs = performance.now() - begun;
  process.stdout.write(`${JSON.stringify({ files, firstAnswerMs, totalMs })}\n`);
} finally {
  await rm(configDir, { recursive: true, force: true });
}
