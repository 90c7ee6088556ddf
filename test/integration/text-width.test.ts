/**
 * At home in a narrow terminal: every help page, the mock's banner and the demo's narration,
 * rendered at 80 and 40 columns, have no line longer than the terminal and no word split across
 * lines (the words read the same as at full width). A word longer than the width is allowed only
 * alone on its line: nothing can break it. Beyond help, what commands say at 80 columns (status,
 * an apply plan, a state check, help written to a pipe) has no line over 80 either.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/client/cli/program.js';
import { CommandContext } from '../../src/client/cli/kit/command-context.js';
import type { IOStreams } from '../../src/client/output/io.js';
import type { MockInfo } from '../../src/common/mock/wire.js';
import { fill, reflow, wrapCommand, wrapLines } from '../../src/common/text/wrap.js';
import stringWidth from 'string-width';
import { saveProfiles } from '../../src/client/profiles/index.js';
import { cliFor, mockEnv, runCli, startCli } from '../helpers/cli.js';
import type { TestMock } from '../helpers/mock.js';
import { mockSuite } from '../helpers/mock-suite.js';
import { testProfile } from '../helpers/profiles.js';
import { assertBuilt, cleanEnv, ksctl } from '../helpers/spawn.js';
import { tempDirs } from '../helpers/temp.js';

const dirs = tempDirs();
afterAll(() => dirs.removeAll());

const WIDTHS = [80, 40];

/** What a terminal shows of a text: spinner frames overwritten, escapes gone. */
function shownLines(text: string): string[] {
  return text.split('\n').map((line) =>
    line
      .split('\r')
      .at(-1)!
      .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, ''),
  );
}

/** The lines longer than `width` that are not one unbreakable word (or quoted argument). */
function overlong(lines: string[], width: number): string[] {
  return lines.filter((line) => {
    if (line.length <= width) return false;
    // A quoted argument of a command line is one word: breaking it would change the command.
    const words = line
      .trim()
      .replace(/ \\$/, '')
      .replace(/'[^']*'|"[^"]*"/g, 'Q')
      .split(/\s+/);
    return words.length > 1;
  });
}

/** The words of a text, whatever its line breaks (a command's ` \` is not a word). */
const words = (text: string) =>
  shownLines(text)
    .join(' ')
    .split(/\s+/)
    .filter((w) => w !== '' && w !== '\\');

function commandPaths(cmd: Command, path: string[] = []): string[][] {
  const paths = [path];
  for (const sub of cmd.commands) {
    if (sub.name() === 'help' || sub.name() === '__complete') continue;
    paths.push(...commandPaths(sub, [...path, sub.name()]));
  }
  return paths;
}

describe('the wrapping helper', () => {
  it('breaks between words only, a long word alone on its line', () => {
    expect(fill('aaa bbb ccc', 7)).toEqual(['aaa bbb', 'ccc']);
    expect(fill('a verylongword b', 6)).toEqual(['a', 'verylongword', 'b']);
  });

  it('keeps two columns while the description has room, else puts it under its term', () => {
    const help = '  --name <name>     only the marking with exactly this name\n';
    expect(reflow(help, 50)).toBe(
      '  --name <name>     only the marking with exactly\n                    this name\n',
    );
    expect(reflow(help, 30)).toBe(
      '  --name <name>\n      only the marking with\n      exactly this name\n',
    );
  });

  it('joins prose broken for another width, and breaks a command line with a backslash', () => {
    expect(reflow('Exit codes: 0 ok, 1 bug,\n2 usage.', 80)).toBe(
      'Exit codes: 0 ok, 1 bug, 2 usage.',
    );
    expect(reflow('  ksctl markings list --name region -o yaml', 30)).toBe(
      '  ksctl markings list --name \\\n      region -o yaml',
    );
    expect(
      wrapCommand("$ ksctl markings create x --description 'Data classification level'", 50),
    ).toEqual(['$ ksctl markings create x --description \\', "    'Data classification level'"]);
  });

  it('hangs a labelled message under its text; a line that fits keeps its spacing', () => {
    expect(wrapLines('hint: pass --yes to confirm the change', 20)).toBe(
      'hint: pass --yes to\n      confirm the\n      change',
    );
    expect(wrapLines('  a    b', 20)).toBe('  a    b');
  });
});

describe('help pages fit the terminal', () => {
  const ctx = new CommandContext(
    {} as IOStreams,
    {},
    { confirm: async () => false, input: async () => '', secret: async () => '' },
    new AbortController().signal,
  );
  const paths = commandPaths(buildProgram(ctx));

  it('covers every command', () => {
    expect(paths.length).toBeGreaterThan(40);
  });

  for (const path of paths) {
    it(`ksctl ${[...path, '--help'].join(' ')}`, async () => {
      const full = await runCli([...path, '--help'], { columns: 1000 });
      expect(full.code).toBe(0);
      for (const width of WIDTHS) {
        const shown = await runCli([...path, '--help'], { columns: width });
        const lines = shownLines(shown.stdout);
        expect(overlong(lines, width), `at ${width} columns`).toEqual([]);
        expect(words(shown.stdout), `at ${width} columns`).toEqual(words(full.stdout));
      }
    });
  }

  it('a subcommand names the global options once, in a line, and the top level has examples', async () => {
    const sub = await runCli(['markings', 'values', 'list', '--help'], { columns: 80 });
    expect(sub.stdout).not.toMatch(/per-request timeout/);
    expect(sub.stdout).toMatch(/Global options \(ksctl --help describes them\): --context,/);
    const top = await runCli(['--help'], { columns: 80 });
    expect(top.stdout).toMatch(/^Examples:\n {2}ksctl demo/m);
    expect(top.stdout).toMatch(/per-request timeout/);
  });
});

/** `ksctl mock serve` on a terminal of `width` columns: its banner, until it is ready. */
async function banner(width: number): Promise<string> {
  const dir = await dirs.make();
  const ready = join(dir, 'ready.json');
  const serving = startCli(['mock', 'serve', '--port', '0', '--ready-file', ready], {
    stdoutIsTTY: true,
    stderrIsTTY: true,
    columns: width,
    env: { KSCTL_CONFIG_DIR: dir, KSCTL_HOME: dir },
  });
  for (let i = 0; i < 400 && !existsSync(ready); i++) await new Promise((r) => setTimeout(r, 25));
  serving.stop();
  expect(await serving.exit).toBe(0);
  return serving.stderr();
}

describe('the mock banner fits the terminal', () => {
  it('at 80 and 40 columns, the words as at full width', { timeout: 60_000 }, async () => {
    // Each start has its own dev token, port and one-time console sign-in code.
    const tokenless = (text: string) =>
      words(text).map((w) => w.replace(/ksdev\.[\w-]+|127\.0\.0\.1:\d+|code=[\w-]+/g, 'X'));
    const full = await banner(1000);
    expect(full).toMatch(/Dev token:/);
    for (const width of WIDTHS) {
      const shown = await banner(width);
      expect(overlong(shownLines(shown), width), `at ${width} columns`).toEqual([]);
      expect(tokenless(shown)).toEqual(tokenless(full));
    }
    // The console link, which no line can break, has a line of its own within 80 columns.
    const link = (await banner(80)).split('\n').find((line) => line.includes('/login?code='));
    expect(link).toMatch(/^ {4}http:\/\/127\.0\.0\.1:\d+\/_mock\/console\/login\?code=[\w-]{22}$/);
    expect(link!.length).toBeLessThanOrEqual(80);
  });
});

/**
 * The demo's narration on a terminal of `width` columns: the opening, each step's title and
 * command line, the closing (the steps' own output is data: tables fit by themselves).
 */
async function demoNarration(width: number): Promise<{ lines: string[]; text: string[] }> {
  const dir = await dirs.make();
  const shown = await runCli(['demo', '--no-pause'], {
    tty: true,
    columns: width,
    env: { KSCTL_CONFIG_DIR: dir, KSCTL_HOME: dir, TMPDIR: dir },
  });
  expect(shown.code, shown.stderr).toBe(0);
  const blocks = shownLines(shown.stdout).join('\n').split('\n\n');
  const lines: string[] = [];
  const text: string[] = [];
  for (const [i, block] of blocks.entries()) {
    const all = block.split('\n');
    // A step: its title, then its command (on as many lines as end with ` \`).
    let end = all.length;
    if (i > 0 && i < blocks.length - 1) {
      const command = all.findIndex((l) => l.startsWith('$ '));
      if (command < 0) continue;
      end = command + 1;
      while (end < all.length && all[end - 1]!.endsWith(' \\')) end++;
    }
    const narration = all.slice(0, end);
    lines.push(...narration);
    text.push(
      narration
        .join(' ')
        .replace(/ \\ /g, ' ')
        .replace(/127\.0\.0\.1:\d+|ksctl-demo-\w+|\bABcd\w+/g, 'X')
        .split(/\s+/)
        .join(' '),
    );
  }
  return { lines, text };
}

describe('the demo fits the terminal', () => {
  it(
    'its narration at 80 and 40 columns, the words as at full width',
    { timeout: 120_000 },
    async () => {
      const full = await demoNarration(1000);
      expect(full.text.length).toBeGreaterThan(15);
      for (const width of WIDTHS) {
        const shown = await demoNarration(width);
        expect(overlong(shown.lines, width), `at ${width} columns`).toEqual([]);
        expect(shown.text).toEqual(full.text);
      }
    },
  );

  it('shows a marking’s values as a short table, not a page of YAML', async () => {
    const dir = await dirs.make();
    const shown = await runCli(['demo', '--no-pause'], {
      tty: true,
      columns: 80,
      env: { KSCTL_CONFIG_DIR: dir, KSCTL_HOME: dir, TMPDIR: dir },
    });
    const step = shown.stdout.split('\n\n').find((b) => b.startsWith('5. '))!;
    expect(step).toMatch(/\$ ksctl markings values list region/);
    expect(step.split('\n').length).toBeLessThan(10);
  });
});

/** The lines of `text` wider than `width` terminal columns, as a terminal shows them. */
const wider = (text: string, width: number) =>
  shownLines(text).filter((line) => stringWidth(line) > width);

describe('what commands say fits 80 columns, not only their help', () => {
  const suite = mockSuite({ resetEachTest: false });
  let mock: TestMock;
  let dir: string;
  const cli = cliFor(() => ({ ...mockEnv(mock, dir), KSCTL_HOME: dir }));
  beforeAll(() => {
    ({ mock, configDir: dir } = suite);
  });

  it('help written to a pipe is laid out for 80 columns', async () => {
    assertBuilt();
    for (const args of [['--help'], ['enroll', '--help'], ['markings', 'list', '--help']]) {
      const env = cleanEnv({ KSCTL_CONFIG_DIR: dir });
      // A pipe with no COLUMNS: 80.
      delete env.COLUMNS;
      const piped = await ksctl(args, { env });
      expect(piped.code).toBe(0);
      expect(wider(piped.stdout, 80), args.join(' ')).toEqual([]);
    }
  });

  it("status: the active profile's line, with a long name and path", async () => {
    const profile = {
      ...testProfile(1),
      name: 'the-laptop-of-the-quality-assurance-team-on-the-third-floor',
    };
    const home = join(dir, 'home');
    await mkdir(join(home, '.ionicsecurity'), { recursive: true });
    await saveProfiles(
      { kind: 'plaintext', path: join(home, '.ionicsecurity', 'profiles.pt') },
      { activeDeviceId: profile.deviceId, profiles: [profile] },
    );
    const shown = await cli(['status'], { tty: true, columns: 80, env: { KSCTL_HOME: home } });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(profile.name);
    expect(wider(shown.stdout, 80)).toEqual([]);
    // Broken between words, each part under the value's column.
    expect(shown.stdout).toMatch(/^Active profile: \S.*\n {16}\S/m);
  });

  it("an apply plan's changed descriptions go on over lines, under their text", async () => {
    const before =
      'Data classification level for every document that the company stores in its archives';
    const after =
      'Data classification level for every record that the group keeps in any of its archives';
    expect(
      (await cli(['markings', 'create', 'classification', '--description', before])).code,
    ).toBe(0);
    const file = join(dir, 'plan.yaml');
    const { writeFile } = await import('node:fs/promises');
    await writeFile(
      file,
      `markings:\n  - name: classification\n    description: ${after}\n    values:\n      - name: secret\n        description: ${before}\n`,
    );
    const plan = await cli(['markings', 'apply', '-f', file, '--dry-run'], {
      tty: true,
      columns: 80,
    });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/^ {4}~ description: "Data classification/m);
    expect(wider(plan.stdout, 80)).toEqual([]);
    // Nothing is cut: every word of both texts is there.
    expect(words(plan.stdout).join(' ')).toContain(`"${before}" → "${after}"`);
    // In a pipe (a CI log) too, at 80 columns.
    const piped = await cli(['markings', 'apply', '-f', file, '--dry-run'], { columns: 80 });
    expect(piped.code, piped.stderr).toBe(0);
    expect(wider(piped.stdout, 80)).toEqual([]);
    expect(words(piped.stdout).join(' ')).toContain(`"${before}" → "${after}"`);
  });

  it('mock state check', { timeout: 30_000 }, async () => {
    const state = join(await dirs.make(), 'state-directory');
    const ready = join(dir, 'state-ready.json');
    const serving = startCli(
      ['mock', 'serve', '--port', '0', '--state', state, '--ready-file', ready, '--no-context'],
      { columns: 80, env: { KSCTL_CONFIG_DIR: dir, KSCTL_HOME: dir } },
    );
    for (let i = 0; i < 400 && !existsSync(ready); i++) await new Promise((r) => setTimeout(r, 25));
    serving.stop();
    expect(await serving.exit).toBe(0);
    const checked = await runCli(['mock', 'state', 'check', state], {
      tty: true,
      columns: 80,
      env: { KSCTL_CONFIG_DIR: dir },
    });
    expect(checked.code, checked.stderr).toBe(0);
    expect(checked.stdout).toMatch(/the state is whole/);
    expect(wider(checked.stdout, 80)).toEqual([]);
    // In a pipe too, at 80 columns.
    const piped = await runCli(['mock', 'state', 'check', state], {
      columns: 80,
      env: { KSCTL_CONFIG_DIR: dir },
    });
    expect(piped.code, piped.stderr).toBe(0);
    expect(wider(piped.stdout, 80)).toEqual([]);
  });
});

/** `ksctl mock serve` in-process until it is ready: its banner (stderr) and what it said. */
async function served(
  args: string[],
  options: { tty: boolean; columns: number; dir: string },
): Promise<{ banner: string; info: MockInfo }> {
  const ready = join(options.dir, `ready-${options.tty}.json`);
  const serving = startCli(['mock', 'serve', '--port', '0', '--ready-file', ready, ...args], {
    stderrIsTTY: options.tty,
    stdoutIsTTY: options.tty,
    columns: options.columns,
    env: { KSCTL_CONFIG_DIR: options.dir, KSCTL_HOME: options.dir },
  });
  for (let i = 0; i < 2400 && !existsSync(ready); i++) await new Promise((r) => setTimeout(r, 25));
  const info = JSON.parse(await readFile(ready, 'utf8')) as MockInfo;
  serving.stop();
  expect(await serving.exit, serving.stderr()).toBe(0);
  return { banner: serving.stderr(), info };
}

/** What a shell makes of commands: each program's name and arguments, one a line. */
function argvOf(commands: string): string {
  const script = `args() { for a in "$@"; do printf '[%s]' "$a"; done; echo; }
keytool() { printf 'keytool'; args "$@"; }
curl() { printf 'curl'; args "$@"; }
java() { printf 'java'; args "$@"; }
${commands}`;
  return execFileSync('sh', ['-c', script], { encoding: 'utf8', env: { PATH: process.env.PATH } });
}

describe('at 80 columns, in a pipe as on a terminal, beyond help', () => {
  it(
    'the mock banner with --tls: its users, its trust lines, commands that still run',
    { timeout: 120_000 },
    async () => {
      // A configuration folder as deep as a home folder's: the CA file's path is long.
      const dir = join(await dirs.make(), 'home', 'alice', '.config', 'ksctl');
      await mkdir(dir, { recursive: true });
      for (const tty of [false, true]) {
        const { banner: shown, info } = await served(['--tls'], { tty, columns: 80, dir });
        const where = tty ? 'on a terminal' : 'in a pipe';
        expect(overlong(shownLines(shown), 80), where).toEqual([]);
        expect(shown, where).toMatch(/^ {2}Users: +alice \(enabled/m);
        expect(shown, where).toMatch(/^ +bob \(disabled: enrolling fails with 40101,/m);
        // Each trust command as printed, given to a shell, is the one the ready file holds.
        const block = (from: string, to: string) =>
          shown.slice(
            shown.indexOf(`    ${from}:\n`) + from.length + 6,
            shown.indexOf(`    ${to}:\n`),
          );
        const trust = info.trust!;
        expect(argvOf(block('curl', 'Java')), where).toBe(argvOf(trust.curl));
        const [keytool, java] = trust.java.split(', then ');
        // "then java …" is read as the java command it names.
        const javaBlock = block('Java', 'Android').replace(/^( *)then /m, '$1');
        expect(argvOf(javaBlock), where).toBe(argvOf(`${keytool}\n${java}`));
        const exported = (line: string) => argvOf(`${line}\nargs "$NODE_EXTRA_CA_CERTS"`);
        expect(exported(block('Node', 'curl')), where).toBe(exported(trust.node));
      }
    },
  );

  it(
    'the mock banner in a pipe, with a state folder and a seed of long user names',
    { timeout: 60_000 },
    async () => {
      const dir = join(await dirs.make(), 'a-folder-whose-name-runs-on');
      await mkdir(dir, { recursive: true });
      const seed = join(dir, 'seed-with-users.json');
      const { writeFile } = await import('node:fs/promises');
      await writeFile(
        seed,
        JSON.stringify({
          users: [
            {
              name: 'the-quality-assurance-team-lead',
              email: 'the-quality-assurance-team-lead@example.com',
              password: 'a-password-as-long-as-a-sentence-is',
            },
          ],
        }),
      );
      const { banner: shown } = await served(['--state', join(dir, 'state'), '--seed', seed], {
        tty: false,
        columns: 80,
        dir,
      });
      expect(wider(shown, 80)).toEqual([]);
      expect(words(shown).join(' ')).toContain(
        'the-quality-assurance-team-lead (enabled, password a-password-as-long-as-a-sentence-is, the-quality-assurance-team-lead@example.com)',
      );
    },
  );

  it('errors and help on stderr from the real process in a pipe', async () => {
    assertBuilt();
    const dir = await dirs.make();
    const env = cleanEnv({
      KSCTL_CONFIG_DIR: dir,
      KSCTL_BASE_URL: 'http://127.0.0.1:9/v2/dev',
      KSCTL_TOKEN: 'x',
    });
    delete env.COLUMNS;
    const runs: [string[], RegExp][] = [
      [
        ['markings', 'list', '--filter', 'nme=foo'],
        /unknown field "nme"; did you mean name\? \(filterable: id, name,/,
      ],
      [
        ['mock', 'faults', 'set', 'code=99999,path=/v2/dev/markings'],
        /code 99999 is neither a markings error code, an enrollment cause code nor a device error code/,
      ],
      [[], /Usage: ksctl/],
    ];
    for (const [args, said] of runs) {
      const run = await ksctl(args, { env });
      expect(run.code, run.stderr).toBe(2);
      expect(wider(run.stderr, 80), args.join(' ')).toEqual([]);
      // Every word is there, whatever the breaks.
      expect(run.stderr.replace(/\s+/g, ' ')).toMatch(said);
    }
  });
});
