/**
 * Who a lock's holder is, beyond its pid: a pid is reused once its process is gone, and a killed
 * process whose parent has not reaped it (a zombie) still answers `kill(pid, 0)`. On Linux a
 * process is also known by its start time (field 22 of /proc/PID/stat, in clock ticks since boot)
 * and the machine's boot id: a lock records both, and its holder is live only when a process with
 * that pid, started at that time in this boot, is running and not a zombie. Elsewhere (no /proc)
 * the pid alone is what there is.
 */
import { readFileSync } from 'node:fs';
import { processIsAlive } from './file-lock.js';
import { errnoCode } from './fs-errors.js';

export interface ProcessIdentity {
  pid: number;
  /** Clock ticks since boot when it started; undefined where /proc is not there. */
  start?: string;
  /** /proc/sys/kernel/random/boot_id; undefined where it is not there. */
  boot?: string;
}

type Status = { state: 'gone' } | { state: 'running' | 'zombie'; start: string } | undefined;

/** The process's state and start time from /proc, or undefined where there is no /proc. */
function procStatus(pid: number): Status {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT' || code === 'ESRCH') {
      return procAvailable() ? { state: 'gone' } : undefined;
    }
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces and ")": read after the last.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const [state] = fields;
  const start = fields[19];
  if (state === undefined || start === undefined) return undefined;
  if (state === 'Z' || state === 'X' || state === 'x') return { state: 'zombie', start };
  return { state: 'running', start };
}

let procChecked: boolean | undefined;
function procAvailable(): boolean {
  if (procChecked === undefined) {
    try {
      readFileSync('/proc/self/stat');
      procChecked = true;
    } catch {
      procChecked = false;
    }
  }
  return procChecked;
}

let bootId: string | null | undefined;
function currentBootId(): string | undefined {
  if (bootId === undefined) {
    try {
      bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
    } catch {
      bootId = null;
    }
  }
  return bootId ?? undefined;
}

/** This process as a lock records it. */
export function ownIdentity(): ProcessIdentity {
  const status = procStatus(process.pid);
  const start = status !== undefined && status.state !== 'gone' ? status.start : undefined;
  const boot = currentBootId();
  return {
    pid: process.pid,
    ...(start === undefined ? {} : { start }),
    ...(boot === undefined ? {} : { boot }),
  };
}

/** `pid start boot`, the parts there are, as a lock file's first line holds them. */
export function identityText(identity: ProcessIdentity): string {
  return [identity.pid, identity.start, identity.boot].filter((p) => p !== undefined).join(' ');
}

/** A lock file's first line read back: undefined when it names no pid. */
export function parseIdentity(text: string): ProcessIdentity | undefined {
  const [pidText, start, boot] = text.trim().split(/\s+/);
  const pid = Number(pidText);
  if (!/^\d+$/.test(pidText ?? '') || !Number.isSafeInteger(pid) || pid <= 0) return undefined;
  return {
    pid,
    ...(start !== undefined && /^\d+$/.test(start) ? { start } : {}),
    ...(boot !== undefined ? { boot } : {}),
  };
}

/**
 * Why the recorded process is not running any more, or undefined when it (or, with only a pid to
 * go by, some process with its pid) still runs. `writtenAtMs`: when the lock was written, which
 * tells a process that started after it (the pid reused) from its holder when no start time was
 * recorded.
 */
export function goneReason(identity: ProcessIdentity, writtenAtMs?: number): string | undefined {
  const boot = currentBootId();
  if (identity.boot !== undefined && boot !== undefined && identity.boot !== boot) {
    return 'the machine restarted since';
  }
  const status = procStatus(identity.pid);
  if (status === undefined) return processIsAlive(identity.pid) ? undefined : 'it is gone';
  if (status.state === 'gone') return 'it is gone';
  if (status.state === 'zombie') return 'it was killed (a zombie now)';
  if (identity.start !== undefined) {
    return status.start === identity.start ? undefined : 'its pid belongs to another process now';
  }
  const started = startedAtMs(status.start);
  // A lock written before its "holder" started was written by another process (one second of
  // slack for clock ticks and file times).
  if (started !== undefined && writtenAtMs !== undefined && started > writtenAtMs + 1000) {
    return 'its pid belongs to another process now';
  }
  return undefined;
}

const CLOCK_TICKS_PER_SECOND = 100;

/** When a process started, in epoch ms, from its start time in ticks and the boot time. */
function startedAtMs(startTicks: string): number | undefined {
  try {
    const btime = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1];
    if (btime === undefined) return undefined;
    return Number(btime) * 1000 + (Number(startTicks) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}
