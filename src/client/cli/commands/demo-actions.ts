/**
 * `ksctl demo`: a guided tour on an embedded mock in a throwaway directory. Each step runs a real
 * ksctl command line in this process and shows it as the user would type it.
 */
import { rmSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { InternalError, InterruptedError, ServiceError } from '../../../common/errors.js';
import { withStreams } from '../../output/io.js';
import { IN_EXECUTABLE, PACKAGE_ROOT, packageFile } from '../../../common/package-root.js';
import type { CommandContext } from '../kit/command-context.js';

export interface TourStep {
  /** What the step shows, in one line. */
  title: string;
  /** The command line, as a user would type it after `ksctl`; computed when the step runs. */
  argv: string[] | (() => string[]);
  /** The command line as shown, when it differs from `argv` (a path inside the package). */
  shown?: string[];
  /** Work before the step runs, such as writing the file it reads. */
  before?: () => Promise<void>;
  /** Receives what the step printed on stdout (a later step may use it). */
  after?: (stdout: string) => void;
  /** The exit code the step shows (a refusal); 0 unless given. */
  exitCode?: number;
}

export function markingsTour(): TourStep[] {
  return [
    {
      title: 'Create a marking with three values and a default',
      argv: [
        'markings',
        'create',
        'classification',
        '--description',
        'Data classification level',
        '--value',
        'public',
        '--value',
        'internal=Staff only',
        '--value',
        'restricted=Need to know',
        '--default-value',
        'internal',
      ],
    },
    {
      title: 'Add values one at a time (cheap, even for markings with thousands of values)',
      argv: ['markings', 'values', 'add', 'classification', 'confidential', 'secret'],
    },
    {
      title: 'Another marking',
      argv: [
        'markings',
        'create',
        'region',
        '--value',
        'eu',
        '--value',
        'us',
        '--value',
        'apac',
        '--public',
      ],
    },
    { title: 'List the markings (a table asks for no values at all)', argv: ['markings', 'list'] },
    {
      title: 'List the values of a marking',
      argv: ['markings', 'values', 'list', 'region'],
    },
    {
      title: 'A marking as YAML, values left out with --value-limit 0: the fast path for big ones',
      argv: ['markings', 'list', '--name', 'region', '-o', 'yaml', '--value-limit', '0'],
    },
    {
      title: 'Rename a marking and remove a value (--yes: removing values asks otherwise)',
      argv: [
        'markings',
        'update',
        'classification',
        '--rename',
        'data-classification',
        '--remove-value',
        'secret',
        '--yes',
      ],
    },
    { title: 'Show one marking', argv: ['markings', 'get', 'data-classification'] },
    {
      title: 'Delete a marking (--yes: no question asked)',
      argv: ['markings', 'delete', 'region', '--yes'],
    },
  ];
}

/**
 * Markings kept in a file: apply the example shipped with ksctl (found next to the code, shown as
 * the user would type it from a checkout), then preview an edited copy written into `dir`.
 */
export function applyTour(dir: string): TourStep[] {
  // The single executable holds the example as an asset: it is written into `dir` first.
  const example = IN_EXECUTABLE
    ? join(dir, 'example-markings.yaml')
    : join(PACKAGE_ROOT, 'examples', 'markings.yaml');
  const edited = join(dir, 'markings.yaml');
  return [
    {
      title: 'Apply a markings file: the plan first, then the fewest requests that carry it out',
      argv: ['markings', 'apply', '-f', example],
      shown: ['markings', 'apply', '-f', 'examples/markings.yaml'],
      ...(IN_EXECUTABLE && {
        before: async () => writeFile(example, await packageFile('examples/markings.yaml')),
      }),
    },
    {
      title: `Edit a copy (${edited}: region gains sa-east and loses us-west, retention's description changes) and preview it`,
      argv: ['markings', 'apply', '-f', edited, '--dry-run'],
      before: async () => writeFile(edited, editedExample(await readFile(example, 'utf8'))),
    },
  ];
}

function editedExample(text: string): string {
  return text
    .replace('      - us-west\n', '      - sa-east\n')
    .replace('How long the data is kept\n', 'How long the data is kept before deletion\n');
}

/**
 * Enrolling a test device on the mock and looking at its profile. KSCTL_HOME points into the
 * demo's throwaway directory, so the profile file never lands in the real home.
 */
export function enrollmentTour(): TourStep[] {
  return [
    {
      title:
        'Enroll a test device with a fresh token pair from the mock (RSA-3072 takes a few seconds)',
      argv: ['enroll', '--mock-user', 'alice', '--name', 'demo-device'],
    },
    {
      title: 'List the profiles (Ionic SDK applications can use them as they are)',
      argv: ['profiles', 'list'],
    },
    {
      title: 'Show one profile (keys only with --show-secrets)',
      argv: ['profiles', 'show', 'demo-device'],
    },
  ];
}

/**
 * The last part of the story: after a marking change, the enrolled device creates a key carrying
 * that marking (its value checked by the service) and fetches it back.
 */
export function keysTour(): TourStep[] {
  let keyId = '';
  return [
    {
      title: 'Change a marking: region gains the value sa-east',
      argv: ['markings', 'values', 'add', 'region', 'sa-east'],
    },
    {
      title:
        'The enrolled device creates a key carrying that marking; markings with a default get it',
      argv: ['keys', 'create', '--attr', 'region=sa-east', '-o', 'json'],
      after: (stdout) => {
        keyId = (JSON.parse(stdout) as { id: string }[])[0]!.id;
      },
    },
    {
      title: 'A value the marking does not have is refused, and the allowed ones are named',
      argv: ['keys', 'create', '--attr', 'region=mars'],
      exitCode: 3,
    },
    {
      title: 'Fetch the key back with the profile: the service gives it with its markings',
      argv: () => ['keys', 'fetch', keyId, '-o', 'yaml'],
    },
  ];
}

function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

export function commandLine(argv: string[]): string {
  return ['ksctl', ...argv].map(shellQuote).join(' ');
}

export interface DemoOptions {
  /** --keep: leave the configuration directory and say where. */
  keep: boolean;
  /** Wait for Enter between steps (off with --no-pause); only where someone can answer. */
  pause: boolean;
}

/** Between the steps on a terminal: what to press. */
const PAUSE_PROMPT = 'Press Enter for the next step (q to stop)';

/**
 * Starts a mock in a throwaway configuration, walks the tour (a step at a time on a terminal), and
 * removes everything.
 */
export async function demo(ctx: CommandContext, { keep, pause }: DemoOptions): Promise<void> {
  const runCommandLine = ctx.runCommandLine;
  if (runCommandLine === undefined) throw new InternalError('the demo needs a command-line runner');
  const { startMockServer } = await import('../../usecases/mock.js');
  const chalk = ctx.io.color ? (await import('chalk')).default : undefined;
  const { fill, proseWidth, wrapCommand, wrapProse } = await import('../../../common/text/wrap.js');
  const width = proseWidth(ctx.io.columns);
  const out = (text: string) => ctx.io.stdout.write(`${text}\n`);
  const prose = (text: string) => out(wrapProse(text, width));
  // Ctrl-C ends the current step and skips the rest, but the mock and the files are cleaned up.
  ctx.stopsGracefully();
  const dir = await mkdtemp(join(tmpdir(), 'ksctl-demo-'));
  const withdraw = keep
    ? () => undefined
    : ctx.onEarlyExit(() => rmSync(dir, { recursive: true, force: true }));
  const server = await startMockServer({ port: 0 });
  try {
    const env: NodeJS.ProcessEnv = { ...ctx.env, KSCTL_CONFIG_DIR: dir, KSCTL_HOME: dir };
    // Nothing of the user's setup may steer the tour, least of all to a real profile file.
    const ENROLL_SETTINGS = [
      'KEYSPACE',
      'API_URL',
      'ENROLLMENT_URL',
      'KNS_URL',
      'STOKEN',
      'UIDAUTH',
    ];
    for (const key of [
      'KSCTL_CONTEXT',
      'KSCTL_BASE_URL',
      'KSCTL_TOKEN',
      'KSCTL_OUTPUT',
      ...ENROLL_SETTINGS.map((name) => `KSCTL_${name}`),
    ])
      delete env[key];
    for (const key of Object.keys(env)) if (key.startsWith('KSCTL_PERSISTOR')) delete env[key];
    // The tour goes on by itself: no step waits in a pager.
    env.KSCTL_PAGER = 'cat';
    const { ConfigStore } = await import('../../config/store.js');
    const store = await ConfigStore.open(env);
    await store.set('mock', {
      baseUrl: server.info.baseUrl,
      token: server.info.token,
      apiUrl: server.info.apiUrl,
      enrollmentUrl: server.info.enrollmentUrl,
      knsUrl: server.info.knsUrl,
      keyspace: server.info.keyspace,
    });
    await store.use('mock');
    prose(
      `A mock of the service is running at ${server.info.url} (as \`ksctl mock serve\` would run it), and a throwaway context "mock" points at it. Each step shows the command and what it prints.`,
    );
    const steps = [...markingsTour(), ...applyTour(dir), ...enrollmentTour(), ...keysTour()];
    const pauses = pause && ctx.canPrompt();
    const { waitForKey } = pauses ? await import('../kit/keypress.js') : { waitForKey: undefined };
    let interrupted = false;
    let stoppedAt: number | undefined;
    for (const [i, step] of steps.entries()) {
      if (ctx.signal.aborted) break;
      if (waitForKey && i > 0) {
        out('');
        const prompt = `[${i}/${steps.length}] ${PAUSE_PROMPT}`;
        const answer = await waitForKey(
          ctx.io.stdin,
          ctx.io.stdout,
          chalk ? chalk.dim(prompt) : prompt,
          ctx.signal,
        );
        if (answer === 'interrupt') interrupted = true;
        if (answer === 'stop') stoppedAt = i;
        if (answer !== 'next') break;
      }
      const argv = typeof step.argv === 'function' ? step.argv() : step.argv;
      out('');
      const title = fill(`${i + 1}. ${step.title}`, width, { rest: '   ' }).join('\n');
      out(chalk ? chalk.bold(title) : title);
      const shown = wrapCommand(`$ ${commandLine(step.shown ?? argv)}`, width).join('\n');
      out(chalk ? chalk.cyan(shown) : shown);
      await step.before?.();
      const printed: Buffer[] = [];
      const stdout = new Writable({
        write(chunk: Buffer, _encoding, done) {
          printed.push(Buffer.from(chunk));
          // A reader gone (`ksctl demo | head`) is the real stdout's error, handled where it ends.
          ctx.io.stdout.write(chunk, () => done());
        },
      });
      const code = await runCommandLine(argv, {
        // The steps' messages go to stdout too, so they read in order with their output.
        io: withStreams(ctx.io, {
          stdout,
          stderr: ctx.io.stdout,
          stderrIsTTY: ctx.io.stdoutIsTTY,
        }),
        env,
        prompter: ctx.prompter,
        signal: ctx.signal,
      });
      if (ctx.signal.aborted) break;
      if (code !== (step.exitCode ?? 0)) {
        throw new ServiceError(
          `the demo step "${commandLine(argv)}" failed with exit code ${code}`,
        );
      }
      step.after?.(Buffer.concat(printed).toString('utf8'));
    }
    if (ctx.signal.aborted || interrupted) {
      throw new InterruptedError('interrupted; the demo stopped its mock and removes its files');
    }
    if (stoppedAt !== undefined) {
      prose(
        `Stopped the tour after step ${stoppedAt} of ${steps.length}; its mock is closed${keep ? '' : ' and its files removed'}. \`ksctl demo --no-pause\` shows it all at once.`,
      );
      return;
    }
    out('');
    prose(
      'That was the tour. To keep going on your own: `ksctl mock serve` in one terminal, then any of the commands above in another; `ksctl --help` lists everything.',
    );
  } finally {
    await server.close();
    if (keep) ctx.say(`kept the demo configuration in ${dir}`);
    else await rm(dir, { recursive: true, force: true });
    withdraw();
  }
}
