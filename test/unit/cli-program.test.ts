/**
 * The program builds only the command a command line names (start-up time), and every command
 * otherwise: checked through the commands it holds and what a user reads.
 */
import { describe, expect, it } from 'vitest';
import { CommandContext } from '../../src/client/cli/kit/command-context.js';
import { buildProgram, COMMANDS } from '../../src/client/cli/program.js';
import type { Prompter } from '../../src/client/cli/kit/prompter.js';
import type { IOStreams } from '../../src/client/output/io.js';
import { runCli } from '../helpers/cli.js';

const unused = () => {
  throw new Error('building the program asks nothing');
};
const prompter: Prompter = { confirm: unused, input: unused, secret: unused };

/** The top-level commands of the program built for `argv` (building writes nothing). */
function built(argv?: string[]): string[][] {
  const ctx = new CommandContext({} as IOStreams, {}, prompter, new AbortController().signal);
  return buildProgram(ctx, argv)
    .commands.filter((c) => c.name() !== 'help')
    .map((c) => [c.name(), ...c.aliases()]);
}

describe('which commands the program builds', () => {
  const all = COMMANDS.map((c) => c.names);

  it('names every top-level command and alias as the commands themselves do', () => {
    expect(all).toEqual(built());
  });

  it('builds only the named command, past the program options and their values', () => {
    expect(built(['markings', 'list'])).toEqual([['markings', 'marking']]);
    expect(built(['-o', 'json', '--context', 'prod', 'key', 'show'])).toEqual([['keys', 'key']]);
    expect(built(['--timeout=5', '-q', '--', 'status'])).toEqual([['status']]);
  });

  it('builds every command without a command word, or past an option it does not know', () => {
    expect(built(['--help'])).toEqual(all);
    expect(built(['help', 'markings'])).toEqual(all);
    expect(built(['markngs'])).toEqual(all);
    expect(built(['--nope', 'markings'])).toEqual(all);
    // Completion scripts and live completions read the whole program.
    expect(built(['completion', 'bash'])).toEqual(all);
    expect(built(['__complete', 'markings'])).toEqual(all);
  });

  it('still lists every command in the program help and suggests one for a typo', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/markings[\s\S]*enroll[\s\S]*profiles[\s\S]*demo/);
    const typo = await runCli(['markngs', 'list']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('(Did you mean markings?)');
  });
});
