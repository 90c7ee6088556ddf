/** The spinner of a wait: terminal only, and off the line while a prompt asks. */
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CommandContext } from '../../src/client/cli/kit/command-context.js';
import type { Prompter } from '../../src/client/cli/kit/prompter.js';
import type { IOStreams } from '../../src/client/output/io.js';

function streams(tty: boolean): { io: IOStreams; written: () => string } {
  const stderr = new PassThrough();
  let text = '';
  stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const io: IOStreams = {
    stdin: new PassThrough(),
    stdout: new PassThrough(),
    stderr,
    stdinIsTTY: tty,
    stdoutIsTTY: tty,
    stderrIsTTY: tty,
    color: false,
    columns: 80,
  };
  return { io, written: () => text };
}

const CLEAR = '\r\x1b[2K';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('a wait with a prompt in it (enroll --email asks for the code mid-run)', () => {
  it('the spinner is cleared before the question and comes back after the answer', async () => {
    const { io, written } = streams(true);
    const seen: string[] = [];
    const prompter: Prompter = {
      confirm: async () => false,
      input: async () => '',
      secret: async () => {
        seen.push(written());
        // Nothing may be drawn while the question is on the screen.
        const before = written().length;
        await vi.advanceTimersByTimeAsync(1000);
        seen.push(written().slice(before));
        return 'code';
      },
    };
    const ctx = new CommandContext(io, {}, prompter, new AbortController().signal);
    await ctx.waiting('enrolling a device into keyspace ABcd…', async () => {
      await vi.advanceTimersByTimeAsync(500);
      expect(written()).toContain('enrolling a device into keyspace ABcd…');
      await ctx.prompter.secret('Registration code:');
      await vi.advanceTimersByTimeAsync(500);
    });
    expect(seen[0]!.endsWith(CLEAR)).toBe(true);
    expect(seen[1]).toBe('');
    const after = written().slice(written().lastIndexOf(seen[0]!) + seen[0]!.length);
    expect(after).toContain('enrolling a device');
    expect(written().endsWith(CLEAR)).toBe(true);
  });

  it('piped stderr gets no spinner at all (its requests say when they wait)', async () => {
    const { io, written } = streams(false);
    const ctx = new CommandContext(io, {}, {} as Prompter, new AbortController().signal);
    await ctx.waiting('enrolling…', () => vi.advanceTimersByTimeAsync(2000));
    expect(written()).toBe('');
  });
});

describe('Ctrl-C during a spinner', () => {
  it("the process's early exit clears the spinner's line first", async () => {
    const { io, written } = streams(true);
    // What main.ts runs before it exits on Ctrl-C (the command does not stop by itself).
    const cleanups = new Set<() => void>();
    const ctx = new CommandContext(
      io,
      {},
      {} as Prompter,
      new AbortController().signal,
      { graceful: false },
      cleanups,
    );
    let atExit = '';
    await ctx.waiting('listing markings', async () => {
      await vi.advanceTimersByTimeAsync(500);
      expect(written()).toContain('listing markings');
      expect(written().endsWith(CLEAR)).toBe(false);
      // The process exits right after these: what they wrote is what the terminal keeps.
      for (const cleanup of cleanups) cleanup();
      await vi.advanceTimersByTimeAsync(0);
      atExit = written();
      // Nothing is drawn after the line is cleared.
      await vi.advanceTimersByTimeAsync(1000);
      expect(written()).toBe(atExit);
    });
    expect(atExit.endsWith(CLEAR)).toBe(true);
    await ctx.dispose();
    expect(cleanups.size).toBe(0);
  });
});
