/**
 * Long tables on a terminal go through a pager, as gh does: `KSCTL_PAGER`, else `PAGER`, else
 * `less -FRX` (which shows a table that fits the screen and quits, keeps colour, and leaves the
 * screen as it was). `--no-pager`, an empty or `cat` pager and piped output print directly.
 */
import { Writable } from 'node:stream';
import { type IOStreams, withStreams } from './io.js';

export interface Pager {
  /** Where the output goes instead of stdout. */
  input: Writable;
  /** Ends the input and waits until the user has left the pager. */
  close(): Promise<void>;
}

/** The pager command for an environment, or undefined for none. */
export function pagerCommand(env: NodeJS.ProcessEnv): string | undefined {
  const chosen = env.KSCTL_PAGER ?? env.PAGER ?? 'less -FRX';
  return chosen.trim() === '' || chosen.trim() === 'cat' ? undefined : chosen;
}

/** Starts the pager on the terminal; undefined when there is none or it cannot start. */
export async function startPager(env: NodeJS.ProcessEnv): Promise<Pager | undefined> {
  const command = pagerCommand(env);
  if (command === undefined) return undefined;
  // Loaded here: the module shares a bundle chunk with every command, few of which page.
  const { spawn } = await import('node:child_process');
  const child = spawn(command, {
    shell: true,
    stdio: ['pipe', 'inherit', 'inherit'],
    // less without $LESS: quit if one screen, colours, no screen clearing (gh's defaults).
    env: { ...env, LESS: env.LESS ?? 'FRX', LV: env.LV ?? '-c' },
  });
  const exited = new Promise<number | null>((resolve) => {
    child.once('error', () => resolve(null));
    child.once('close', (code) => resolve(code));
  });
  const started = await Promise.race([
    new Promise<boolean>((resolve) => child.once('spawn', () => resolve(true))),
    exited.then(() => false),
  ]);
  if (!started) return undefined;
  // The user may leave the pager before the table is all written (`q`): that is no error.
  child.stdin.on('error', () => undefined);
  return {
    input: child.stdin,
    async close() {
      child.stdin.end();
      await exited;
    },
  };
}

/**
 * `write` to the pager, or to stdout when there is none. What is said on stderr meanwhile (a
 * table's "cut to fit") waits until the pager has the screen no more.
 */
export async function writePaged(
  io: IOStreams,
  env: NodeJS.ProcessEnv,
  write: (io: IOStreams) => Promise<void>,
): Promise<void> {
  const pager = await startPager(env);
  if (pager === undefined) return write(io);
  const said: Buffer[] = [];
  const stderr = new Writable({
    write(chunk: Buffer, _encoding, done) {
      said.push(Buffer.from(chunk));
      done();
    },
  });
  try {
    await write(withStreams(io, { stdout: pager.input, stderr }));
  } finally {
    await pager.close();
    if (said.length > 0) io.stderr.write(Buffer.concat(said));
  }
}
