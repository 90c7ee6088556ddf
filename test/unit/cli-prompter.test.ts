import { PassThrough } from 'node:stream';
import { expect, it } from 'vitest';
import { terminalPrompter } from '../../src/cli/prompter.js';
import { InterruptedError } from '../../src/errors.js';
import type { IOStreams } from '../../src/output/io.js';

function terminal(): { io: IOStreams; keys: PassThrough } {
  const keys = new PassThrough();
  const io: IOStreams = {
    stdin: keys,
    stdout: new PassThrough(),
    stderr: new PassThrough().resume(),
    stdinIsTTY: true,
    stdoutIsTTY: true,
    stderrIsTTY: true,
    color: false,
    columns: 80,
  };
  return { io, keys };
}

it('Ctrl-C at a question is an interruption (exit 130), not a bug (exit 1)', async () => {
  const { io, keys } = terminal();
  const answer = terminalPrompter(io).confirm('Delete marking "region"?');
  setTimeout(() => keys.write('\u0003'), 50);
  const error = await answer.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(InterruptedError);
  expect((error as InterruptedError).exitCode).toBe(130);
});

it('an answer typed at the question is returned', async () => {
  const { io, keys } = terminal();
  const answer = terminalPrompter(io).confirm('Delete marking "region"?');
  setTimeout(() => keys.write('y\r'), 50);
  expect(await answer).toBe(true);
});
