/**
 * Issue 25, item 5: a second `ksctl mock serve` never takes the "mock" context from a mock that
 * still answers. Real `mock serve --port 0` processes share one configuration directory: the
 * second is written as "mock-2" and says how to use it, "mock" keeps working after the second
 * stops, and a context whose mock is gone is taken over as before.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, cleanEnv, ksctl, type ServedMock, serveMock } from '../helpers/spawn.js';
import { tempDirs } from '../helpers/temp.js';

const temp = tempDirs();
const running: ServedMock[] = [];
let dir: string;
let env: NodeJS.ProcessEnv;
let started = 0;

beforeAll(async () => {
  assertBuilt();
  dir = await temp.make();
  env = cleanEnv({ KSCTL_CONFIG_DIR: dir, KSCTL_HOME: dir });
});

afterAll(async () => {
  await Promise.all(running.map((served) => served.stop()));
  await temp.removeAll();
});

async function serve(extra: string[] = []): Promise<ServedMock> {
  const served = await serveMock(extra, { env, readyFile: join(dir, `ready-${++started}.json`) });
  running.push(served);
  return served;
}

/** Standard error once it holds `text` (the banner may still be on its way when the ready file is). */
async function stderrWith(served: ServedMock, text: string): Promise<string> {
  for (let i = 0; i < 200 && !served.output().stderr.includes(text); i++) await sleep(25);
  return served.output().stderr;
}

async function contextUrl(name: string): Promise<string> {
  const shown = await ksctl(['context', 'show', name, '-o', 'json'], { env });
  expect(shown.code).toBe(0);
  return (JSON.parse(shown.stdout) as { baseUrl: string }).baseUrl;
}

describe('two mocks and the "mock" context (issue 25, item 5)', () => {
  it('a second mock leaves "mock" to the first, which still answers, and says how to use it', async () => {
    const first = await serve();
    expect(await stderrWith(first, 'is current and points here')).toContain(
      'The context "mock" is current and points here',
    );
    const second = await serve();
    const said = await stderrWith(second, 'markings list');
    expect(said).toContain(
      `The context "mock" is left as it is: the mock at ${first.info.url}\nstill answers there.`,
    );
    expect(said).toContain('ksctl --context mock-2 markings list');
    expect(await contextUrl('mock')).toBe(first.info.baseUrl);
    expect(await contextUrl('mock-2')).toBe(second.info.baseUrl);
    const viaSecond = await ksctl(['--context', 'mock-2', 'markings', 'list'], { env });
    expect(viaSecond.code).toBe(0);

    // The second one stops: commands on the current context still reach the first.
    expect((await second.stop()).code).toBe(0);
    const list = await ksctl(['markings', 'list'], { env });
    expect(list.stderr).toBe('');
    expect(list.code).toBe(0);
  }, 60_000);

  it('with --json the note goes to standard error, and a "mock-N" whose mock is gone is reused', async () => {
    const third = await serve(['--json']);
    const said = await stderrWith(third, 'markings list');
    expect(said).toContain('ksctl --context mock-2 markings list');
    expect(JSON.parse((await third.stdoutLines(1))[0]!)).toMatchObject({ url: third.info.url });
    expect(await contextUrl('mock-2')).toBe(third.info.baseUrl);
    expect((await third.stop()).code).toBe(0);
  }, 60_000);

  it('a "mock" context whose mock is gone is taken over, as before', async () => {
    const [first] = running;
    expect((await first!.stop()).code).toBe(0);
    const next = await serve();
    expect(await stderrWith(next, 'markings list')).toContain(
      'The context "mock" is current and points here',
    );
    expect(await contextUrl('mock')).toBe(next.info.baseUrl);
    expect((await ksctl(['markings', 'list'], { env })).code).toBe(0);
  }, 60_000);
});
