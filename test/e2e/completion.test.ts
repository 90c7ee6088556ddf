/**
 * Shell completion for real: the scripts in completions/ match the program, and bash, zsh and fish
 * (each a real shell with the script loaded) complete commands, options, option values and names
 * (live from a mock and the configuration). zsh runs its completion system in a pseudo-terminal
 * (zpty), pressing Tab on each line; fish answers `complete -C`; bash runs `_ksctl` as `complete -F`
 * would. A test whose shell is not installed is skipped, saying so (test/helpers/programs.ts);
 * under CI it fails (.ci/run installs them).
 */
import { execFile, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { copyFile, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import type { TestMock } from '../helpers/mock.js';
import { mockSuite } from '../helpers/mock-suite.js';
import { requireProgram } from '../helpers/programs.js';
import { assertBuilt, BIN, ROOT } from '../helpers/spawn.js';
import { tempDirs } from '../helpers/temp.js';

const FILES = { bash: 'ksctl.bash', zsh: '_ksctl', fish: 'ksctl.fish' } as const;
type ShellName = keyof typeof FILES;

describe('completions/ holds the scripts the program generates', () => {
  for (const [shell, file] of Object.entries(FILES)) {
    it(`${shell}: completions/${file} is up to date (else run npm run completions)`, async () => {
      const generated = await runCli(['completion', shell]);
      expect(generated.code).toBe(0);
      expect(await readFile(join(ROOT, 'completions', file), 'utf8')).toBe(generated.stdout);
    });
  }
});

const quote = (w: string) => `'${w.replace(/'/g, `'\\''`)}'`;

/** Sourced by an interactive `zsh -f` in the pseudo-terminal: prints each match Tab finds. */
const ZSH_INIT = (load: string) => `PROMPT=''; RPROMPT=''; PS2=''
unsetopt beep
${load}
zstyle ':completion:*' insert-tab false
compadd() {
  if (( \${@[(I)-[OAD]]} )); then builtin compadd "$@"; return; fi
  local -a __ksctl_hits
  builtin compadd -O __ksctl_hits "$@"
  print -rl -- "" "KSCTL-MATCH "\${^__ksctl_hits}
  builtin compadd "$@"
}
_ksctl_test_end() { print -r -- "" KSCTL-END; exit }
comppostfuncs=(_ksctl_test_end)
bindkey '^I' complete-word
print -r -- KSCTL-READY
`;

/** Types each line into a fresh interactive zsh and presses Tab. */
const ZSH_DRIVER = `zmodload zsh/zpty || exit 3
init=$1; shift
for line in "$@"; do
  zpty ksctl_z 'zsh -f -i'
  zpty -w ksctl_z "source \${(q)init}"
  out=""
  while zpty -r ksctl_z chunk; do out+=$chunk; [[ $out == *KSCTL-READY$'\\r'* ]] && break; done
  zpty -w -n ksctl_z "$line"$'\\t'
  out=""
  while zpty -r ksctl_z chunk; do out+=$chunk; [[ $out == *KSCTL-END* ]] && break; done
  zpty -d ksctl_z
  print -r -- "$out" | tr -d '\\r' | grep -a '^KSCTL-MATCH ' | sed 's/^KSCTL-MATCH //' | tr '\\n' '\\t'
  print
done
`;

/** A shell and how its script is loaded: zsh both sourced and autoloaded from $fpath. */
const SHELLS: { name: string; shell: ShellName; zshFpath?: boolean }[] = [
  { name: 'bash', shell: 'bash' },
  { name: 'zsh (source <(ksctl completion zsh))', shell: 'zsh' },
  { name: 'zsh (completions/_ksctl on $fpath)', shell: 'zsh', zshFpath: true },
  { name: 'fish', shell: 'fish' },
];

const CROWD = 501;
const dirs = tempDirs();
const suite = mockSuite({ resetEachTest: false });
/** A mock with more marking names than a Tab offers. */
const crowdedSuite = mockSuite({
  resetEachTest: false,
  seed: {
    markings: Array.from({ length: CROWD }, (_, i) => ({
      name: `crowd-${String(i).padStart(3, '0')}`,
    })),
  },
});
let mock: TestMock;
let crowded: TestMock;
let env: NodeJS.ProcessEnv;
let work: string;

beforeAll(async () => {
  assertBuilt();
  mock = suite.mock;
  crowded = crowdedSuite.mock;
  const configDir = await dirs.make();
  const binDir = await dirs.make();
  work = await dirs.make();
  await symlink(BIN, join(binDir, 'ksctl'));
  env = {
    PATH: `${binDir}:${dirname(process.execPath)}:/usr/bin:/bin`,
    KSCTL_CONFIG_DIR: configDir,
    KSCTL_HOME: configDir,
    HOME: work,
    TERM: 'xterm',
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
  // Two stored profiles, in the default plaintext file of the configuration's home.
  await mkdir(join(configDir, '.ionicsecurity'), { mode: 0o700 });
  const key = '00'.repeat(32);
  const profile = (name: string, n: number) => ({
    name,
    deviceId: `ABcd.1.00000000-0000-4000-8000-00000000000${n}`,
    server: mock.info.url,
    aesCdIdcKey: key,
    aesCdEiKey: key,
    creationTimestamp: 1_763_780_000 + n,
  });
  await writeFile(
    join(configDir, '.ionicsecurity', 'profiles.pt'),
    JSON.stringify({ activeDeviceId: '', profiles: [profile('laptop', 1), profile('work', 2)] }),
    { mode: 0o600 },
  );
  await mkdir(join(work, 'fpath'));
  await copyFile(join(ROOT, 'completions', '_ksctl'), join(work, 'fpath', '_ksctl'));
  await writeFile(
    join(work, 'sourced.zsh'),
    ZSH_INIT(
      `autoload -U compinit && compinit -u -D\nsource ${quote(join(ROOT, 'completions', '_ksctl'))}`,
    ),
  );
  await writeFile(
    join(work, 'fpath.zsh'),
    ZSH_INIT(
      `fpath=(${quote(join(work, 'fpath'))} $fpath)\nautoload -U compinit && compinit -u -D`,
    ),
  );
  await writeFile(join(work, 'driver.zsh'), ZSH_DRIVER);
});

afterAll(() => dirs.removeAll());

/**
 * The words each shell offers for each command line (the last word is the one being completed),
 * sorted, with a "--flag=" the shell keeps in front of a value taken off.
 */
async function complete(
  target: (typeof SHELLS)[number],
  lines: string[][],
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<string[][]> {
  const run = (file: string, args: string[]) =>
    promisify(execFile)(file, args, {
      cwd: work,
      env: { ...env, ...extraEnv },
      encoding: 'utf8',
      timeout: 60_000,
    });
  let stdout: string;
  if (target.shell === 'bash') {
    const calls = lines
      .map((words) => {
        return `COMP_WORDS=(${words.map(quote).join(' ')}); COMP_CWORD=${words.length - 1}; _ksctl; printf '%s\\t' "\${COMPREPLY[@]}"; echo`;
      })
      .join('\n');
    const script = join(ROOT, 'completions', FILES.bash);
    const result = await run('bash', ['--norc', '-c', `source ${quote(script)}\n${calls}`]);
    expect(result.stderr).toBe('');
    stdout = result.stdout;
  } else if (target.shell === 'fish') {
    const script = join(ROOT, 'completions', FILES.fish);
    const calls = lines.map(
      (words) =>
        `echo (complete -C ${quote(words.join(' '))} | string replace -r '\\t.*' '' | string join \\t)`,
    );
    const result = await run('fish', [
      '--no-config',
      '-c',
      [`source ${quote(script)}`, ...calls].join('\n'),
    ]);
    expect(result.stderr).toBe('');
    stdout = result.stdout;
  } else {
    const init = join(work, target.zshFpath ? 'fpath.zsh' : 'sourced.zsh');
    const result = await run('zsh', [
      '-f',
      join(work, 'driver.zsh'),
      init,
      ...lines.map((w) => w.join(' ')),
    ]);
    stdout = result.stdout;
  }
  return stdout
    .split('\n')
    .slice(0, lines.length)
    .map((line) =>
      line
        .split('\t')
        .filter((w) => w !== '')
        .map((w) => w.replace(/^--[a-z-]+=/, ''))
        .sort(),
    );
}

for (const target of SHELLS) {
  describe(`${target.name} completion`, () => {
    requireProgram(target.shell, `apt-get install ${target.shell}`);

    it('completes commands, subcommands through aliases, and options', async () => {
      const [top, mark, values, rmOptions, output, outputEquals, get] = await complete(target, [
        ['ksctl', ''],
        ['ksctl', 'mark'],
        ['ksctl', 'marking', 'values', ''],
        ['ksctl', 'context', 'rm', '--'],
        ['ksctl', 'markings', 'list', '-o', ''],
        target.shell === 'bash'
          ? ['ksctl', 'markings', 'list', '--output', '=', 'j']
          : ['ksctl', 'markings', 'list', '--output=j'],
        ['ksctl', '--context', 'mock', 'markings', 'g'],
      ]);
      expect(top).toEqual(expect.arrayContaining(['markings', 'enroll', 'context', 'completion']));
      expect(top).not.toContain('__complete');
      expect(mark).toEqual(['markings']);
      expect(values).toEqual(['add', 'delete', 'get', 'list', 'update']);
      // `context rm` is `context remove` (not `markings delete`): its own --yes and the globals.
      expect(rmOptions).toEqual(
        expect.arrayContaining(['--yes', '--help', '--context', '--output']),
      );
      expect(rmOptions).not.toContain('--if-version');
      expect(output).toEqual(['json', 'table', 'yaml']);
      expect(outputEquals).toEqual(['json']);
      expect(get).toEqual(['get']);
    });

    it('completes marking, value and context names live, never a stray option', async () => {
      const [markings, prefixed, valueNames, removeValue, contexts, contextFlag, recordTarget] =
        await complete(target, [
          ['ksctl', 'markings', 'get', ''],
          ['ksctl', 'markings', 'delete', 'region', 'cl'],
          ['ksctl', 'markings', 'values', 'get', 'classification', ''],
          ['ksctl', 'markings', 'update', 'classification', '--remove-value', 'r'],
          ['ksctl', 'context', 'use', ''],
          ['ksctl', '--context', 's'],
          ['ksctl', 'mock', 'record', '--target', ''],
        ]);
      expect(markings).toEqual(['classification', 'region']);
      expect(prefixed).toEqual(['classification']);
      expect(valueNames).toEqual(['internal', 'public', 'restricted']);
      expect(removeValue).toEqual(['restricted']);
      expect(contexts).toEqual(['mock', 'staging']);
      expect(contextFlag).toEqual(['staging']);
      expect(recordTarget).toEqual(['mock', 'staging']);
    });

    it('completes profile names after --profile, as after profiles show, never files', async () => {
      const [create, fetchW, show] = await complete(target, [
        ['ksctl', 'keys', 'create', '--profile', ''],
        ['ksctl', 'keys', 'fetch', 'ABcdx7Rk2Qp', '--profile', 'w'],
        ['ksctl', 'profiles', 'show', ''],
      ]);
      expect(create).toEqual(['laptop', 'work']);
      expect(fetchW).toEqual(['work']);
      expect(show).toEqual(['laptop', 'work']);
    });

    it('says so when there are more names than it offers', async () => {
      const crowd = { KSCTL_BASE_URL: crowded.baseUrl, KSCTL_TOKEN: crowded.token };
      const [all, few] = await complete(
        target,
        [
          ['ksctl', 'markings', 'get', 'c'],
          ['ksctl', 'markings', 'get', 'crowd-01'],
        ],
        crowd,
      );
      const hint = 'first 500 names only: type more of the name';
      if (target.shell === 'zsh') {
        // zsh shows the hint as a message: the matches are the names alone.
        expect(all).toHaveLength(500);
      } else {
        // bash offers the hint among the names; fish as the description of the word typed.
        expect(all).toHaveLength(501);
        expect(all).toContain(target.shell === 'bash' ? hint : 'c');
      }
      expect(all).toContain('crowd-000');
      expect(few).toEqual(Array.from({ length: 10 }, (_, i) => `crowd-01${i}`));
    });

    it('offers nothing, silently, when the service is away', async () => {
      const [away] = await complete(target, [['ksctl', 'markings', 'get', '']], {
        KSCTL_BASE_URL: 'http://127.0.0.1:9/v2/dev',
      });
      expect(away).toEqual([]);
    });
  });
}

describe('bash on a terminal', () => {
  requireProgram('bash', 'apt-get install bash');
  requireProgram('script', 'apt-get install bsdutils');
  it('completes a directory with its "/" and no space, so the path goes on', async () => {
    await mkdir(join(work, 'markings-dir'), { recursive: true });
    await writeFile(join(work, 'markings-dir', 'a.yaml'), 'markings: []\n');
    const script = join(ROOT, 'completions', FILES.bash);
    // readline inserts what the completion offers: typed into an interactive bash, the line
    // echoes back as the shell completed it (`echo` completes as ksctl does here).
    const typed = [
      `source ${quote(script)}; complete -F _ksctl echo; PS1='$ '\n`,
      'echo markings apply -f markings-d\tEND\n',
      'exit\n',
    ];
    const child = spawn('script', ['-qfec', 'bash --norc --noprofile -i', '/dev/null'], {
      cwd: work,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let screen = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (screen += text));
    const exited = new Promise((resolve) => child.once('close', resolve));
    const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    for (const line of typed) {
      child.stdin.write(line);
      await sleep(700);
    }
    child.stdin.end();
    await exited;
    clearTimeout(killer);
    expect(screen).toContain('markings apply -f markings-dir/END');
  });
});

describe('the README install lines', () => {
  requireProgram('bash', 'apt-get install bash');
  requireProgram('fish', 'apt-get install fish');
  it('work in a fresh home and put the scripts where the shells load them', async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('### Shell completion'));
    const lines = section
      .slice(0, section.indexOf('\n### ', 1))
      .split('\n')
      .filter((l) => /^(mkdir -p|ksctl completion \w+ >)/.test(l));
    expect(lines.length).toBeGreaterThanOrEqual(4);
    const home = await dirs.make();
    const result = await promisify(execFile)('bash', ['-e', '-c', lines.join('\n')], {
      cwd: home,
      env: { ...env, HOME: home },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.stderr).toBe('');
    const bashFile = join(home, '.local/share/bash-completion/completions/ksctl');
    const fishFile = join(home, '.config/fish/completions/ksctl.fish');
    expect(await readFile(bashFile, 'utf8')).toBe(
      await readFile(join(ROOT, 'completions', FILES.bash), 'utf8'),
    );
    // fish finds it by itself, in a fresh home: `complete -C` offers ksctl's commands.
    const fish = await promisify(execFile)('fish', ['-c', "complete -C 'ksctl mark'"], {
      cwd: home,
      env: { ...env, HOME: home, XDG_CONFIG_HOME: join(home, '.config') },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(await readFile(fishFile, 'utf8')).toContain('complete -c ksctl');
    expect(fish.stdout).toMatch(/^markings\t/m);
  });
});
