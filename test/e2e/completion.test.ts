/**
 * Shell completion for real: the scripts in completions/ match the program, and a bash with the
 * script sourced completes commands, options and names (live from a mock and the configuration).
 */
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdir, readFile, symlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startMock, type TestMock } from '../helpers/mock.js';
import { assertBuilt, BIN, ROOT } from '../helpers/spawn.js';
import { tempDirs } from '../helpers/temp.js';

const FILES = { bash: 'ksctl.bash', zsh: '_ksctl', fish: 'ksctl.fish' } as const;

describe('completions/ holds the scripts the program generates', () => {
  for (const [shell, file] of Object.entries(FILES)) {
    it(`${shell}: completions/${file} is up to date (else run npm run completions)`, async () => {
      const generated = await runCli(['completion', shell]);
      expect(generated.code).toBe(0);
      expect(await readFile(join(ROOT, 'completions', file), 'utf8')).toBe(generated.stdout);
    });
  }
});

const hasBash = spawnSync('bash', ['--version']).status === 0;

describe.skipIf(!hasBash)('bash completion', () => {
  const dirs = tempDirs();
  let mock: TestMock;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    assertBuilt();
    mock = await startMock();
    const configDir = await dirs.make();
    const binDir = await dirs.make();
    await symlink(BIN, join(binDir, 'ksctl'));
    env = {
      PATH: `${binDir}:${dirname(process.execPath)}:/usr/bin:/bin`,
      KSCTL_CONFIG_DIR: configDir,
      KSCTL_HOME: configDir,
    };
    await mkdir(configDir, { recursive: true });
    for (const name of ['staging', 'mock']) {
      const added = await runCli(
        ['context', 'add', name, '--base-url', mock.baseUrl, '--token-file', '-', '--use'],
        { env: { KSCTL_CONFIG_DIR: configDir }, stdin: mock.token },
      );
      expect(added.code).toBe(0);
    }
    await mock.call('POST', '/v2/dev/markings', {
      name: 'classification',
      detail: { values: [{ name: 'public' }, { name: 'internal' }, { name: 'restricted' }] },
    });
    await mock.call('POST', '/v2/dev/markings', {
      name: 'region',
      detail: { values: [{ name: 'eu' }] },
    });
  });

  afterAll(async () => {
    await mock?.close();
    await dirs.removeAll();
  });

  /**
   * COMPREPLY for each command line; the last word is the one being completed. Asynchronous: the
   * mock answers from this process.
   */
  async function complete(
    lines: string[][],
    extraEnv: NodeJS.ProcessEnv = {},
  ): Promise<string[][]> {
    const calls = lines
      .map((words) => {
        const quoted = words.map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ');
        return `COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _ksctl; printf '%s\\t' "\${COMPREPLY[@]}"; echo`;
      })
      .join('\n');
    const result = await promisify(execFile)(
      'bash',
      ['--norc', '-c', `source completions/ksctl.bash\n${calls}`],
      { cwd: ROOT, env: { ...env, ...extraEnv }, encoding: 'utf8', timeout: 30_000 },
    );
    expect(result.stderr).toBe('');
    return result.stdout
      .split('\n')
      .slice(0, lines.length)
      .map((line) => line.split('\t').filter((w) => w !== ''));
  }

  it('completes commands, subcommands through aliases, and options', async () => {
    const [top, mark, values, rmOptions, output, outputEquals, get] = await complete([
      ['ksctl', ''],
      ['ksctl', 'mark'],
      ['ksctl', 'marking', 'values', ''],
      ['ksctl', 'context', 'rm', '--'],
      ['ksctl', 'markings', 'list', '-o', ''],
      ['ksctl', 'markings', 'list', '--output', '=', 'j'],
      ['ksctl', '--context', 'mock', 'markings', 'g'],
    ]);
    expect(top).toEqual(expect.arrayContaining(['markings', 'enroll', 'context', 'completion']));
    expect(top).not.toContain('__complete');
    expect(mark).toEqual(['markings']);
    expect(values).toEqual(['list', 'get', 'add', 'update', 'delete']);
    // `context rm` is `context remove` (not `markings delete`): its own --yes and the globals.
    expect(rmOptions).toEqual(expect.arrayContaining(['--yes', '--help', '--context', '--output']));
    expect(rmOptions).not.toContain('--if-version');
    expect(output).toEqual(['table', 'json', 'yaml']);
    expect(outputEquals).toEqual(['json']);
    expect(get).toEqual(['get']);
  });

  it('completes marking, value and context names live, never a stray option', async () => {
    const [markings, prefixed, valueNames, removeValue, contexts, contextFlag] = await complete([
      ['ksctl', 'markings', 'get', ''],
      ['ksctl', 'markings', 'delete', 'region', 'cl'],
      ['ksctl', 'markings', 'values', 'get', 'classification', ''],
      ['ksctl', 'markings', 'update', 'classification', '--remove-value', 'r'],
      ['ksctl', 'context', 'use', ''],
      ['ksctl', '--context', 's'],
    ]);
    expect(markings).toEqual(['classification', 'region']);
    expect(prefixed).toEqual(['classification']);
    expect(valueNames).toEqual(['internal', 'public', 'restricted']);
    expect(removeValue).toEqual(['restricted']);
    expect(contexts).toEqual(['mock', 'staging']);
    expect(contextFlag).toEqual(['staging']);
  });

  it('offers nothing, silently, when the service is away', async () => {
    const [away] = await complete([['ksctl', 'markings', 'get', '']], {
      KSCTL_BASE_URL: 'http://127.0.0.1:9/v2/dev',
    });
    expect(away).toEqual([]);
  });
});
