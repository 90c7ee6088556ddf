/** Every command a user can see shows how it is used: an `Examples:` block in its help. */
import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { CommandContext } from '../../src/client/cli/kit/command-context.js';
import { buildProgram } from '../../src/client/cli/program.js';
import type { Prompter } from '../../src/client/cli/kit/prompter.js';
import type { IOStreams } from '../../src/client/output/io.js';

const io: IOStreams = {
  stdin: new PassThrough(),
  stdout: new PassThrough(),
  stderr: new PassThrough(),
  stdinIsTTY: false,
  stdoutIsTTY: false,
  stderrIsTTY: false,
  color: false,
  columns: 100,
} as unknown as IOStreams;
const prompter: Prompter = {
  confirm: async () => false,
  input: async () => '',
  secret: async () => '',
};

/** Visible commands, each with its path from the root ("markings list"). */
function visible(command: Command, path: string[] = []): [string, Command][] {
  return command.commands
    .filter((c) => !(c as unknown as { _hidden: boolean })._hidden)
    .flatMap((c) => {
      const here = [...path, c.name()];
      return [[here.join(' '), c] as [string, Command], ...visible(c, here)];
    });
}

/** The help text as a user reads it: commander's help and the text added after it. */
function helpOf(command: Command): string {
  let text = '';
  command.configureOutput({ writeOut: (s) => (text += s), writeErr: (s) => (text += s) });
  command.outputHelp();
  return text;
}

describe('help examples', () => {
  const program = buildProgram(new CommandContext(io, {}, prompter, new AbortController().signal));
  const commands = visible(program);

  it('walks the whole tree (a walk that finds nothing proves nothing)', () => {
    expect(commands.map(([path]) => path)).toEqual(
      expect.arrayContaining(['markings list', 'markings values add', 'mock faults set', 'enroll']),
    );
  });

  it('every visible command has an Examples block of ksctl command lines', () => {
    const missing = commands
      .filter(
        ([, command]) => !/^Examples:\n {2}(\S+=\S+ )?(eval "\$\()?ksctl /m.test(helpOf(command)),
      )
      .map(([path]) => path);
    expect(missing).toEqual([]);
  });
});
