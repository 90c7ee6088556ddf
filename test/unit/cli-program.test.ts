/**
 * The program builds only the command a command line names (start-up time), and every command
 * otherwise: checked through the commands it holds and what a user reads.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CommandContext } from '../../src/cli/context.js';
import { run } from '../../src/cli/main.js';
import { buildProgram, COMMANDS } from '../../src/cli/program.js';
import type { Prompter } from '../../src/cli/prompter.js';
import type { IOStreams } from '../../src/output/io.js';

function streams(): IOStreams & { out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return {
    stdin: new PassThrough(),
    stdout,
    stderr,
    stdinIsTTY: false,
    stdoutIsTTY: false,
    stderrIsTTY: false,
    color: false,
    columns: 100,
    out: () => out,
    err: () => err,
  } as unknown as IOStreams & { out: () => string; err: () => string };
}

const prompter: Prompter = {
  confirm: async () => false,
  input: async () => '',
  secret: async () => '',
};

const built = (argv?: string[]) =>
  buildProgram(new CommandContext(streams(), {}, prompter, new AbortController().signal), argv)
    .commands.map((c) => c.name())
    .filter((name) => name !== 'help');

describe('which commands the program builds', () => {
  it('names every top-level command and alias as the commands themselves do', () => {
    const program = buildProgram(
      new CommandContext(streams(), {}, prompter, new AbortController().signal),
    );
    const actual = program.commands
      .filter((c) => c.name() !== 'help')
      .map((c) => [c.name(), ...c.aliases()]);
    expect(COMMANDS.map((c) => c.names)).toEqual(actual);
  });

  it('builds only the named command, past the program options and their values', () => {
    expect(built(['markings', 'list'])).toEqual(['markings']);
    expect(built(['-o', 'json', '--context', 'prod', 'key', 'show'])).toEqual(['keys']);
    expect(built(['--timeout=5', '-q', '--', 'status'])).toEqual(['status']);
  });

  it('builds every command without a command word, or past an option it does not know', () => {
    const all = COMMANDS.map((c) => c.names[0]);
    expect(built()).toEqual(all);
    expect(built(['--help'])).toEqual(all);
    expect(built(['help', 'markings'])).toEqual(all);
    expect(built(['markngs'])).toEqual(all);
    expect(built(['--nope', 'markings'])).toEqual(all);
    // Completion scripts and live completions read the whole program.
    expect(built(['completion', 'bash'])).toEqual(all);
    expect(built(['__complete', 'markings'])).toEqual(all);
  });

  it('still lists every command in the program help and suggests one for a typo', async () => {
    const help = streams();
    expect(await run(['--help'], { io: help, env: {}, prompter })).toBe(0);
    expect(help.out()).toMatch(/markings[\s\S]*enroll[\s\S]*profiles[\s\S]*demo/);
    const typo = streams();
    expect(await run(['markngs', 'list'], { io: typo, env: {}, prompter })).toBe(2);
    expect(typo.err()).toContain('(Did you mean markings?)');
  });
});
