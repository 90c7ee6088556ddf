/**
 * Off a terminal every wait over a second says so on stderr, in plain lines (no carriage return,
 * no escape code): a named wait, a request without an answer, a retry, a long run's progress.
 * --quiet says none of it.
 */
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RequestActivity } from '../../src/client/api/client.js';
import { retryMessage } from '../../src/client/api/retry-policy.js';
import type { IOStreams } from '../../src/client/output/io.js';
import { elapsed } from '../../src/client/output/plain-waits.js';
import { progressBar } from '../../src/client/output/progress.js';
import { Spinners } from '../../src/client/output/spinners.js';

function piped(): { io: IOStreams; written: () => string } {
  const stderr = new PassThrough();
  let text = '';
  stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const io: IOStreams = {
    stdin: new PassThrough(),
    stdout: new PassThrough(),
    stderr,
    stdinIsTTY: false,
    stdoutIsTTY: false,
    stderrIsTTY: false,
    color: false,
    columns: 80,
  };
  return { io, written: () => text };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

const PLAIN = /^[^\r\x1b]*$/;

describe('a request off a terminal', () => {
  async function activity(quiet = false) {
    const { io, written } = piped();
    const start = (await new Spinners(io, () => quiet).requestActivity())!;
    return { start, written };
  }

  it('says nothing when the answer comes within a second', async () => {
    const { start, written } = await activity();
    const request = start('list markings');
    await vi.advanceTimersByTimeAsync(900);
    request.done();
    await vi.advanceTimersByTimeAsync(30_000);
    expect(written()).toBe('');
  });

  it('without an answer: a line after a second, then every ten seconds, until it ends', async () => {
    const { start, written } = await activity();
    const request: RequestActivity = start('list markings');
    await vi.advanceTimersByTimeAsync(21_500);
    request.done();
    await vi.advanceTimersByTimeAsync(30_000);
    const lines = written().trimEnd().split('\n');
    expect(lines).toEqual([
      'list markings: no answer yet after 1 s…',
      'list markings: still no answer after 11 s',
      'list markings: still no answer after 21 s',
    ]);
    expect(written()).toMatch(PLAIN);
  });

  it('each retry is a line at once, saying why, how long and which attempt', async () => {
    const { start, written } = await activity();
    const request = start('list markings');
    request.retrying(retryMessage(1234, '503', 2, 4));
    request.done();
    expect(written()).toBe('list markings: 503, retrying in 1.3 s (attempt 2 of 4)\n');
  });

  it('--quiet: nothing at all', async () => {
    const { io, written } = piped();
    expect(await new Spinners(io, () => true).requestActivity()).toBeUndefined();
    await new Spinners(io, () => true).waiting('listing markings', () =>
      vi.advanceTimersByTimeAsync(30_000),
    );
    expect(written()).toBe('');
  });

  it('inside a named wait, the requests speak: the wait itself is no line', async () => {
    const { io, written } = piped();
    const spinners = new Spinners(io, () => false);
    const start = (await spinners.requestActivity())!;
    await spinners.waiting('enrolling a device into keyspace ABcd…', async () => {
      const request = start('register device');
      await vi.advanceTimersByTimeAsync(5000);
      request.retrying(retryMessage(200, 'connection refused', 2, 4));
      await vi.advanceTimersByTimeAsync(7000);
      request.done();
    });
    expect(written().trimEnd().split('\n')).toEqual([
      'register device: no answer yet after 1 s…',
      'register device: connection refused, retrying in 0.2 s (attempt 2 of 4)',
      'register device: still no answer after 11 s',
    ]);
  });

  it('while a long run shows its progress, its requests leave the waiting to it', async () => {
    const { io, written } = piped();
    const start = (await new Spinners(io, () => false).requestActivity())!;
    const bar = progressBar(io, 10, 'Applying 10 changes');
    const request = start('update marking m-1');
    await vi.advanceTimersByTimeAsync(1500);
    request.done();
    bar.done();
    expect(written()).toBe('Applying 10 changes: 0/10 (1 s)\n');
  });
});

describe('a long run off a terminal (apply, bulk enroll)', () => {
  it('says how far it is after a second, then every five seconds, stalled or not', async () => {
    const { io, written } = piped();
    const bar = progressBar(io, 40, 'Applying 40 changes');
    for (let i = 0; i < 10; i++) bar.tick();
    await vi.advanceTimersByTimeAsync(1000);
    bar.tick(true);
    await vi.advanceTimersByTimeAsync(5000);
    // Stalled: it still says so.
    await vi.advanceTimersByTimeAsync(5000);
    bar.set(40, 1);
    bar.done();
    await vi.advanceTimersByTimeAsync(30_000);
    expect(written().trimEnd().split('\n')).toEqual([
      'Applying 40 changes: 10/40 (1 s)',
      'Applying 40 changes: 11/40, 1 failed (6 s)',
      'Applying 40 changes: 11/40, 1 failed (11 s)',
    ]);
  });

  it('a short run, or --quiet, says nothing', async () => {
    const { io, written } = piped();
    const short = progressBar(io, 3, 'Enrolling 3 devices');
    short.set(3);
    short.done();
    const quiet = progressBar(io, 3, 'Enrolling 3 devices', { quiet: true });
    await vi.advanceTimersByTimeAsync(20_000);
    quiet.done();
    expect(written()).toBe('');
  });
});

describe('elapsed', () => {
  it.each([
    [400, '0 s'],
    [1000, '1 s'],
    [59_400, '59 s'],
    [60_000, '1 min'],
    [125_000, '2 min 5 s'],
  ])('%i ms: %s', (ms, text) => {
    expect(elapsed(ms)).toBe(text);
  });
});
