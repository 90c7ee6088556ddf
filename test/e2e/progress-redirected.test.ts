/**
 * Progress shows whenever stderr is a terminal, also when stdout goes to a file: the real
 * bin/ksctl.js on a pseudo-terminal (`script`), its stdout redirected, against a spawned mock whose
 * every answer takes 250 ms. Each request is shorter than the spinner's 300 ms grace; the two or
 * more requests of each command together are not (with room to spare on a fast machine: 120 ms
 * made a two-request plan finish inside the grace), and that wait is what the user sits through.
 */
import { spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { assertBuilt, BIN, cleanEnv, type ServedMock, serveMock } from '../helpers/spawn.js';
import { requireProgram } from '../helpers/programs.js';
import { tempDirs } from '../helpers/temp.js';

const hasScript = requireProgram('script', 'apt-get install bsdutils');
const temp = tempDirs();
let dir: string;
let served: ServedMock;
const MARKINGS = 300;
const BIG_VALUES = 1500;

beforeAll(async () => {
  if (!hasScript) return;
  assertBuilt();
  dir = await temp.make();
  const seed = join(dir, 'seed.json');
  const markings = Array.from({ length: MARKINGS }, (_, i) => ({
    name: `m-${String(i).padStart(3, '0')}`,
    values: ['a', 'b'],
  }));
  // One marking whose values take two pages (the others are listed without it: small pages).
  markings.push({ name: 'big', values: Array.from({ length: BIG_VALUES }, (_, i) => `v${i}`) });
  await writeFile(seed, JSON.stringify({ markings }));
  served = await serveMock(['--seed', seed, '--latency', '250', '--no-context'], {
    env: cleanEnv({ KSCTL_CONFIG_DIR: join(dir, 'serve-config') }),
    readyFile: join(dir, 'ready.json'),
  });
  // A cold mock's first answers are slower than its latency: warm it up.
  for (let i = 0; i < 3; i++) {
    const answer = await fetch(`${served.info.baseUrl}/markings?limit=100`, {
      headers: { authorization: `Bearer ${served.info.token}` },
    });
    await answer.arrayBuffer();
  }
}, 60_000);
afterAll(async () => {
  await served?.stop();
  await temp.removeAll();
});

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** `ksctl ARGS > FILE` on a terminal: what the terminal showed, and the exit code. */
function onTerminal(args: string[], file: string): { terminal: string; code: number | null } {
  const command = `${[process.execPath, BIN, ...args].map(quote).join(' ')} > ${quote(file)}`;
  const result = spawnSync('script', ['-qfec', command, '/dev/null'], {
    env: cleanEnv({
      KSCTL_CONFIG_DIR: join(dir, 'config'),
      KSCTL_BASE_URL: served.info.baseUrl,
      KSCTL_TOKEN: served.info.token,
    }),
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { terminal: result.stdout, code: result.status };
}

/** A spinner frame drawn on the terminal, whatever it says. */
const SPINNER = /\r\x1b\[2K[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] \S/;

/**
 * `ksctl ARGS > NAME` on a terminal, which must succeed showing the wait, clear the spinner's line
 * at the end and leave nothing of it in the file; returns the file's text.
 */
async function redirected(args: string[], name: string): Promise<string> {
  const file = join(dir, name);
  const { terminal, code } = onTerminal(args, file);
  expect(code).toBe(0);
  expect(terminal).toMatch(SPINNER);
  // The spinner's line is cleared at the end: nothing of it stays on the screen.
  expect(terminal).toMatch(/\r\x1b\[2K$/);
  const text = await readFile(file, 'utf8');
  expect(text).not.toMatch(/[\r\x1b⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
  return text;
}

describe('stdout to a file, stderr on a terminal', () => {
  it('markings list … -o json > l.json shows the wait and writes clean JSON', async () => {
    const text = await redirected(
      ['markings', 'list', '--starts-with', 'm-', '-o', 'json'],
      'l.json',
    );
    expect((JSON.parse(text) as unknown[]).length).toBe(MARKINGS);
  });

  it('markings export … > e.yaml shows the wait and writes a clean file', async () => {
    const text = await redirected(['markings', 'export', '--starts-with', 'm-'], 'e.yaml');
    expect((parse(text) as { markings: unknown[] }).markings.length).toBe(MARKINGS);
  });

  it('markings apply -f … --dry-run > plan.txt shows the wait of its reads', async () => {
    // Every request of the plan is short; together they are the wait.
    const input = join(dir, 'markings.yaml');
    await writeFile(input, 'markings:\n  - name: m-000\n    values: [a, b, c]\n');
    const text = await redirected(
      ['markings', 'apply', '-f', input, '--dry-run', '--prune'],
      'plan.txt',
    );
    expect(text).toContain(`Plan: 0 to create, 1 to update, ${MARKINGS} to delete`);
  });

  it('markings values list big -o json > v.json shows the wait and writes clean JSON', async () => {
    const text = await redirected(['markings', 'values', 'list', 'big', '-o', 'json'], 'v.json');
    expect((JSON.parse(text) as unknown[]).length).toBe(BIG_VALUES);
  });
});
