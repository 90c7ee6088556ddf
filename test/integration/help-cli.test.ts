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
