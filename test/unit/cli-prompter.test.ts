import { PassThrough } from 'node:stream';
import { expect, it } from 'vitest';
import { terminalPrompter } from '../../src/client/cli/kit/prompter.js';
import { InterruptedError } from '../../src/common/errors.js';
import type { IOStreams } from '../../src/client/output/io.js';

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

it.each([
  ['confirm', (p: ReturnType<typeof terminalPrompter>) => p.confirm('Delete marking "region"?')],
  ['input', (p: ReturnType<typeof terminalPrompter>) => p.input('Keyspace')],
  ['secret', (p: ReturnType<typeof terminalPrompter>) => p.secret('STOKEN')],
])(
  'Ctrl-D at a %s question is an interruption (exit 130), never an answer or exit 0',
  async (_, question) => {
    const { io, keys } = terminal();
    const answer = question(terminalPrompter(io));
    setTimeout(() => keys.write('\u0004'), 50);
    const error = await answer.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InterruptedError);
    expect((error as InterruptedError).exitCode).toBe(130);
  },
);

it('questions asked one after another each get their answer', async () => {
  const { io, keys } = terminal();
  const prompter = terminalPrompter(io);
  const first = prompter.input('Keyspace');
  setTimeout(() => keys.write('ABcd\r'), 50);
  expect(await first).toBe('ABcd');
  const second = prompter.secret('STOKEN');
  setTimeout(() => keys.write('I.token\r'), 50);
  expect(await second).toBe('I.token');
});
