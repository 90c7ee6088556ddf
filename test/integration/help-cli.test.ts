/** Help: any depth through `ksctl help`, global options shown, one wording, documented rules. */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

describe('help', () => {
  it('ksctl help markings list shows the help of list, with the global options it honours', async () => {
    const result = await runCli(['help', 'markings', 'list']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: ksctl markings list\|ls \[options\]/);
    expect(result.stdout).toContain('--starts-with <text>');
    // The global options by name, once (ksctl --help describes them).
    expect(result.stdout).toMatch(/^Global options \(ksctl --help describes them\): --context,/m);
    expect(result.stdout).toMatch(/^Examples:\n {2}ksctl markings list/m);
    expect((await runCli(['markings', 'list', '--help'])).stdout).toBe(result.stdout);
  });

  it('an unknown command in ksctl help is a usage error naming it', async () => {
    const result = await runCli(['help', 'markings', 'frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: unknown command "markings frobnicate"$/m);
    expect(result.stderr).toMatch(/^hint: ksctl markings --help lists the commands$/m);
  });

  it('ksctl version suggests --version, as commander suggests a mistyped option', async () => {
    const result = await runCli(['version']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "error: unknown command 'version'\n(Did you mean --version?)\n(add --help for usage)\n",
    );
  });

  it.each([
    [['markings', 'values', 'remove', 'm', 'v'], 'remove', 'delete'],
    [['mock', 'faults', 'add', 'status=503'], 'add', 'set'],
    [['context', 'switch', 'mock'], 'switch', 'use'],
    [['profiles', 'remove', 'laptop'], 'remove', 'delete'],
    [['markings', 'lst'], 'lst', 'one of list, ls'],
    [['list', 'markings'], 'list', 'ksctl markings list'],
    [['-o', 'json', 'get', 'markings', 'region'], 'get', 'ksctl markings get'],
    [['ls'], 'ls', 'ksctl markings list, or ksctl profiles list, or ksctl context list'],
  ])('ksctl %j suggests what was meant', async (argv, word, meant) => {
    const result = await runCli(argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `error: unknown command '${word}'\n(Did you mean ${meant}?)\n(add --help for usage)\n`,
    );
  });

  it('ksctl help with a misspelt command suggests the command', async () => {
    for (const [argv, meant] of [
      [['help', 'markngs'], 'ksctl help markings'],
      [['help', 'markings', 'lst'], 'ksctl help markings list'],
      [['help', 'markings', 'values', 'remove'], 'ksctl help markings values delete'],
    ] as const) {
      const result = await runCli([...argv]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(new RegExp(`^hint: did you mean ${meant}\\? \\(`, 'm'));
    }
    // A word like nothing known: no guess, only where to look.
    const unlike = await runCli(['help', 'xyzzy']);
    expect(unlike.stderr).toMatch(/^hint: ksctl --help lists the commands$/m);
  });

  it.each([[[]], [['markings']], [['markings', 'values']], [['mock']], [['context']]])(
    'ksctl %j alone prints its help on stderr laid out as --help does, within 80 columns',
    async (argv) => {
      const alone = await runCli(argv, { columns: 80 });
      expect(alone.code).not.toBe(0);
      const help = await runCli([...argv, '--help'], { columns: 80 });
      expect(alone.stderr).toBe(help.stdout);
      const long = alone.stderr.split('\n').filter((line) => line.length > 80);
      expect(long).toEqual([]);
    },
  );

  it('every command words its help option the same way', async () => {
    for (const argv of [['--help'], ['markings', '--help'], ['context', 'use', '--help']]) {
      const { stdout } = await runCli(argv);
      expect(stdout).toMatch(/^ {2}-h, --help +show help$/m);
      expect(stdout).not.toContain('display help for command');
    }
  });

  it('mock faults set --help documents the rule keys', async () => {
    const { stdout } = await runCli(['mock', 'faults', 'set', '--help']);
    for (const key of ['method', 'path', 'status', 'code', 'probability', 'times']) {
      expect(stdout).toMatch(new RegExp(`^ {2}${key} +\\S`, 'm'));
    }
  });
});
