/**
 * A spinner and data share a terminal: a write to stdout or stderr takes the spinner off the line
 * first, and it comes back only after 300 ms of quiet, so nothing is drawn over.
 */
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CommandContext } from '../../src/client/cli/kit/command-context.js';
import type { IOStreams } from '../../src/client/output/io.js';

afterEach(() => {
  vi.useRealTimers();
});

function terminal() {
  let shown = '';
  const sink = () => {
    const stream = new PassThrough();
    stream.on('data', (chunk: Buffer) => (shown += chunk.toString('utf8')));
    return stream;
  };
  const io: IOStreams = {
    stdin: new PassThrough(),
    stdout: sink(),
    stderr: sink(),
    stdinIsTTY: false,
    stdoutIsTTY: true,
    stderrIsTTY: true,
    color: false,
    columns: 80,
  };
  return { io, shown: () => shown };
}

describe('a spinner gives way to what a command writes', () => {
  it('is cleared before data is written, and comes back after 300 ms of quiet', async () => {
    vi.useFakeTimers();
    const { io, shown } = terminal();
    const ctx = new CommandContext(
      io,
      {},
      { confirm: async () => false, input: async () => '', secret: async () => '' },
      new AbortController().signal,
    );
    await ctx.waiting('reading markings', async () => {
      await vi.advanceTimersByTimeAsync(400);
      expect(shown()).toMatch(/\r\x1b\[2K. reading markings$/);
      ctx.io.stdout.write('classification\n');
      await vi.advanceTimersByTimeAsync(0);
      // Cleared, then the data, on a clean line.
      expect(shown()).toMatch(/reading markings\r\x1b\[2Kclassification\n$/);
      await vi.advanceTimersByTimeAsync(200);
      expect(shown()).toMatch(/classification\n$/);
      await vi.advanceTimersByTimeAsync(200);
      expect(shown()).toMatch(/classification\n(\r\x1b\[2K. reading markings)+$/);
    });
    await ctx.dispose();
    expect(shown()).toMatch(/\r\x1b\[2K$/);
  });
});
