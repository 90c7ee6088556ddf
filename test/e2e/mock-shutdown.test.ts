/**
 * Issue 25, item 13: stopping `ksctl mock serve` answers every request it has taken in. A storm of
 * requests on fresh connections is sent to the real command, SIGTERM arrives in the middle of it,
 * and every request must get an HTTP answer (served, or 503 with Retry-After): none may meet a
 * reset connection, whether it was being served or still waiting in the listen queue.
 */
import type { ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { assertBuilt, cleanEnv, serveMock } from '../helpers/spawn.js';
import { tempDirs } from '../helpers/temp.js';

const temp = tempDirs();
afterAll(() => temp.removeAll());

const STORM = 200;
/** SIGTERM goes when this many answers are in: the rest are in flight or queued. */
const SIGNAL_AFTER = 20;

interface Outcome {
  status?: number;
  retryAfter?: string;
  error?: string;
}

/** One request on a fresh connection: its status line and Retry-After, or the socket's error. */
function oneRequest(port: number, path: string, token: string, onAnswer: () => void) {
  return new Promise<Outcome>((resolve) => {
    let text = '';
    let answered = false;
    const socket = connect({ host: '127.0.0.1', port });
    socket.setTimeout(20_000, () => socket.destroy(new Error('timed out')));
    socket.on('connect', () => {
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n\r\n`,
      );
    });
    socket.setEncoding('latin1').on('data', (chunk: string) => {
      text += chunk;
      if (!answered && text.includes('\r\n\r\n')) {
        answered = true;
        onAnswer();
      }
    });
    socket.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? 'error' }));
    socket.on('close', () => {
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
      if (status === undefined) {
        resolve({ error: text === '' ? 'closed without an answer' : 'not HTTP' });
        return;
      }
      const retryAfter = /\r\nretry-after: *([^\r]*)/i.exec(text)?.[1];
      resolve({ status: Number(status), retryAfter });
    });
  });
}

function stopsWithin(child: ChildProcess, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

describe('stopping the mock in the middle of a storm (issue 25, item 13)', () => {
  it('answers every request it took in, 200 or 503 with Retry-After, and exits 0', async () => {
    assertBuilt();
    const dir = await temp.make();
    const served = await serveMock(['--json', '--no-context'], {
      env: cleanEnv({ KSCTL_CONFIG_DIR: dir }),
      readyFile: join(dir, 'ready.json'),
    });
    const { port, pathname } = new URL(served.info.baseUrl);
    let answers = 0;
    let signalled = false;
    const outcomes = await Promise.all(
      Array.from({ length: STORM }, () =>
        oneRequest(Number(port), `${pathname}/markings?limit=5`, served.info.token, () => {
          if (++answers === SIGNAL_AFTER && !signalled) {
            signalled = true;
            served.child.kill('SIGTERM');
          }
        }),
      ),
    );
    // The one SIGTERM above is all: the mock must stop by itself, not by a second signal.
    const exited = served.child.exitCode !== null || (await stopsWithin(served.child, 15_000));
    const exit = await served.stop();
    expect(exited).toBe(true);
    expect(signalled).toBe(true);
    expect(outcomes.filter((o) => o.status === 200).length).toBeGreaterThanOrEqual(SIGNAL_AFTER);
    const failures = outcomes.filter((o) => o.error !== undefined).map((o) => o.error);
    expect(failures).toEqual([]);
    for (const outcome of outcomes) {
      expect([200, 503]).toContain(outcome.status);
      if (outcome.status === 503) expect(outcome.retryAfter).toMatch(/^\d+$/);
    }
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit.stderr).toMatch(/stopped\n$/);
  }, 60_000);
});
