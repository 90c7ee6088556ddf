/**
 * `ksctl mock serve --state DIR` killed with SIGKILL in the middle of a write storm: every write
 * it acknowledged (answered 2xx) is there after a restart (docs/design.md 3.2). The real command, a
 * real kill, several rounds on the same directory. Needs a build (`npm test` builds first).
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Marking, MarkingValue } from '../../src/common/markings/wire.js';
import { assertBuilt, cleanEnv, type ServedMock, serveMock, ksctl } from '../helpers/spawn.js';
import { tempDirs } from '../helpers/temp.js';

const TOKEN = 'e2e-state-token';
const ROUNDS = 3;
const WRITERS = 16;
/** Acknowledged writes per round before the kill (bounded by time as well). */
const WRITES_BEFORE_KILL = 150;

const dirs = tempDirs();
let env: NodeJS.ProcessEnv;
let stateDir: string;
let work: string;

beforeAll(async () => {
  assertBuilt();
  work = await dirs.make();
  stateDir = join(work, 'state');
  env = cleanEnv({ KSCTL_CONFIG_DIR: join(work, 'config') });
});
afterAll(() => dirs.removeAll());

let started = 0;
const serve = (extra: string[] = []) =>
  serveMock(['--state', stateDir, '--dev-token', TOKEN, ...extra], {
    env,
    readyFile: join(work, `ready-${++started}.json`),
  });

async function send(served: ServedMock, method: string, path: string, body?: unknown) {
  const response = await fetch(`${served.info.baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as unknown };
}

interface Acknowledged {
  markings: Map<string, string>;
  values: { markingId: string; id: string; name: string }[];
}

/** WRITERS clients create markings and add values until enough are acknowledged; then kill -9. */
async function stormThenKill(served: ServedMock, round: number, acked: Acknowledged) {
  let count = 0;
  let killed = false;
  // A bound, not a pass mark: a slow machine kills after fewer writes.
  const deadline = Date.now() + 30_000;
  const writer = async (w: number) => {
    for (let i = 0; !killed && Date.now() < deadline; i++) {
      try {
        const created = await send(served, 'POST', '/markings', { name: `r${round}-w${w}-${i}` });
        if (created.status !== 201) continue;
        const m = created.body as Marking;
        acked.markings.set(m.id, m.name);
        count++;
        const value = await send(served, 'POST', `/markings/${m.id}/values`, { name: 'v' });
        if (value.status !== 201) continue;
        const v = value.body as MarkingValue;
        acked.values.push({ markingId: m.id, id: v.id, name: v.name });
        count++;
      } catch {
        return; // the connection died with the process: not acknowledged
      }
    }
  };
  const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));
  while (count < WRITES_BEFORE_KILL && Date.now() < deadline) await sleep(5);
  served.child.kill('SIGKILL');
  killed = true;
  await Promise.all(writers);
  const exit = await served.stop();
  expect(exit.signal).toBe('SIGKILL');
  return count;
}

describe('mock serve --state, killed with SIGKILL during writes', () => {
  it(`keeps every acknowledged write, ${ROUNDS} rounds`, { timeout: 240_000 }, async () => {
    const acked: Acknowledged = { markings: new Map(), values: [] };
    for (let round = 0; round < ROUNDS; round++) {
      const served = await serve();
      expect(await stormThenKill(served, round, acked)).toBeGreaterThan(0);
    }

    const served = await serve();
    try {
      const list = await send(served, 'GET', '/markings?limit=1000&valueLimit=0');
      const present = new Map(
        (list.body as { Resources: Marking[] }).Resources.map((m) => [m.id, m.name]),
      );
      const missing = [...acked.markings].filter(([id, name]) => present.get(id) !== name);
      expect(missing).toEqual([]);
      for (const v of acked.values) {
        const got = await send(served, 'GET', `/markings/${v.markingId}/values/${v.id}`);
        expect(got.status, `value ${v.id} of ${v.markingId}`).toBe(200);
      }
    } finally {
      const exit = await served.stop();
      expect(exit.code).toBe(0);
    }
  });

  it('refuses a second mock on the same directory while one runs (exit 2, the holder named)', async () => {
    const served = await serve();
    try {
      const second = await ksctl(
        ['mock', 'serve', '--port', '0', '--no-context', '--state', stateDir],
        { env },
      );
      expect(second.code).toBe(2);
      expect(second.stderr).toContain(
        `the state directory ${stateDir} is in use by another mock (pid ${served.child.pid})`,
      );
      expect(second.stderr).not.toMatch(/\n\s+at /);
    } finally {
      expect((await served.stop()).code).toBe(0);
    }
  });
});
