/**
 * A state directory's lock is stale once its mock is gone, however the pid looks now: a mock
 * killed with kill -9 whose parent has not reaped it (a zombie: `kill(pid, 0)` still succeeds),
 * and a lock naming a pid that another process has now. The next `mock serve --state` takes the
 * lock over with a warning instead of refusing "in use by another mock". A running mock's lock
 * is still refused. Linux (/proc) only: elsewhere the pid is all a lock can go by.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, cleanEnv, ksctl, type ServedMock, serveMock } from '../helpers/spawn.js';
import { tempDirs } from '../helpers/temp.js';

const dirs = tempDirs();
let work: string;
let env: NodeJS.ProcessEnv;
const children: ChildProcess[] = [];

beforeAll(async () => {
  assertBuilt();
  work = await dirs.make();
  env = cleanEnv({ KSCTL_CONFIG_DIR: join(work, 'config') });
});
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await dirs.removeAll();
});

let started = 0;
const serve = (state: string) =>
  serveMock(['--state', state, '--no-context'], {
    env,
    readyFile: join(work, `ready-${++started}.json`),
  });

/** Waits (bounded) until `check` holds. */
async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** A process's state letter from /proc ("S", "R", "Z"), or undefined once it is reaped. */
async function procState(pid: number): Promise<string | undefined> {
  const text = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  return text?.slice(text.lastIndexOf(')') + 2).split(' ')[0];
}

/** A process that lives until the test ends: `sleep`, spawned here. */
function bystander(): ChildProcess {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  children.push(child);
  return child;
}

async function startsAndWarns(state: string, pid: number, reason: string): Promise<void> {
  const served: ServedMock = await serve(state);
  try {
    expect(served.output().stderr).toContain(
      `warning: took over the lock of ${state} from a mock that is not running (pid ${pid}: ${reason})`,
    );
    const health = await fetch(`${served.info.url}/_mock/health`);
    expect(health.status).toBe(200);
  } finally {
    await served.stop();
  }
}

describe.skipIf(!existsSync('/proc/self/stat'))('the lock of a state directory', () => {
  it('a mock killed with kill -9 and not reaped yet (a zombie) no longer holds it', async () => {
    const state = join(work, 'zombie');
    const pidFile = join(work, 'zombie.pid');
    // The mock's parent execs sleep, which never reaps it: killed, it stays a zombie.
    const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    const wrapper = spawn(
      'sh',
      [
        '-c',
        `${quote(process.execPath)} ${quote(BIN)} mock serve --port 0 --no-log --no-context --state ${quote(state)} >/dev/null 2>&1 & echo $! > ${quote(pidFile)}; exec sleep 600`,
      ],
      { env, stdio: 'ignore' },
    );
    children.push(wrapper);
    await until(() => existsSync(join(state, 'lock')), 'the first mock to lock its state');
    const pid = Number(await readFile(pidFile, 'utf8'));
    expect((await readFile(join(state, 'lock'), 'utf8')).split(' ')[0]).toBe(String(pid));
    process.kill(pid, 'SIGKILL');
    await until(async () => (await procState(pid)) === 'Z', 'the killed mock to be a zombie');
    await startsAndWarns(state, pid, 'it was killed (a zombie now)');
  });

  it('a lock naming a pid that another process has now is taken over', async () => {
    const other = bystander();
    const pid = other.pid!;
    // As written by a mock of this boot whose pid the bystander got later: another start time.
    const state = join(work, 'reused');
    await mkdir(state, { recursive: true });
    const boot = (await readFile('/proc/sys/kernel/random/boot_id', 'utf8')).trim();
    await writeFile(join(state, 'lock'), `${pid} 1 ${boot}\n`);
    await startsAndWarns(state, pid, 'its pid belongs to another process now');
    // An older lock holds the pid alone: a process started after the lock was written is not
    // its holder.
    const legacy = join(work, 'legacy');
    await mkdir(legacy, { recursive: true });
    await writeFile(join(legacy, 'lock'), `${pid}\n`);
    const hourAgo = new Date(Date.now() - 3_600_000);
    await utimes(join(legacy, 'lock'), hourAgo, hourAgo);
    await startsAndWarns(legacy, pid, 'its pid belongs to another process now');
  });

  it('a lock from before the machine restarted is taken over', async () => {
    const state = join(work, 'rebooted');
    await mkdir(state, { recursive: true });
    await writeFile(join(state, 'lock'), `${process.pid} 1 00000000-0000-4000-8000-000000000000\n`);
    await startsAndWarns(state, process.pid, 'the machine restarted since');
  });

  it('a running mock keeps it: the next one is refused, naming its pid', async () => {
    const state = join(work, 'running');
    const first = await serve(state);
    try {
      const second = await ksctl(
        ['mock', 'serve', '--port', '0', '--no-context', '--state', state],
        {
          env,
        },
      );
      expect(second.code).toBe(2);
      expect(second.stderr).toContain(
        `error: the state directory ${state} is in use by another mock (pid ${first.child.pid})`,
      );
    } finally {
      await first.stop();
    }
    // Stopped cleanly: the lock is gone, and the next one starts without a warning.
    const again = await serve(state);
    expect(again.output().stderr).not.toContain('warning');
    await again.stop();
  });
});
