/**
 * Many test devices at once (`ksctl enroll --count N`, `--tokens-file`): names numbered on from
 * what the profile file holds, key pairs generated ahead of the devices, a pool of enrollments,
 * each new profile checked with a key request unless told not to. Failures are counted, not
 * thrown: the caller reports them and takes its exit code from them.
 */
import { checkProfileName } from '../config/enrollment.js';
import { checkDevice, storedButFailed } from '../device/check.js';
import { enrollAndStore, prepareRun, type StoredDevice } from '../enroll/registration.js';
import { bulkKeySupply, defaultConcurrency, type KeyPairSupply } from '../enroll/device-keys.js';
import { InternalError, isKsctlError, UsageError } from '../../common/errors.js';
import type { ProfileRow } from '../profiles/operations.js';
import type { ProfileSet } from '../profiles/types.js';
import { type EnrollRun, withEnrollmentRun } from './enrollment-run.js';
import { bulkExitCode, runPool, type TaskOutcome } from './pool.js';

const DEFAULT_BULK_NAME = 'test-device';

export interface ManyDevices {
  /** How many devices; default as many as the token source has pairs. */
  count?: number;
  /** Enrollments at once (default: the number of cores, at most 4). */
  concurrency?: number;
  /**
   * With `count`: the key pairs of the `count` devices, already being generated at `concurrency`
   * (device-keys.ts bulkKeySupply; the CLI starts them before it loads the rest). Stopped when
   * the run ends, whatever happens. Without it the run starts its own once its checks pass.
   */
  keys?: KeyPairSupply;
  /** Profiles are named NAME-1, NAME-2, … (default test-device). */
  name?: string;
  /** Create and fetch a key with each new profile. */
  verify: boolean;
  /** Once every check has passed, as the first device starts. */
  onStart?: (count: number) => void;
  /** As each device is enrolled or fails. */
  onSettled?: (outcome: TaskOutcome<StoredDevice>) => void;
}

export interface Failure {
  name: string;
  message: string;
  code: string;
  exitCode: number;
  serviceCode?: number;
  hint?: string;
  conversationId?: string;
}

export interface ManyEnrolled {
  count: number;
  concurrency: number;
  /** Seconds from the first device's start to the last one's end, one decimal. */
  seconds: string;
  enrolled: ProfileRow[];
  failed: Failure[];
  /** 0 when every device enrolled, else the most common exit code of the failures. */
  exitCode: number;
}

export async function enrollMany(options: EnrollRun, devices: ManyDevices): Promise<ManyEnrolled> {
  if (devices.keys !== undefined && devices.count === undefined) {
    devices.keys.stop();
    throw new InternalError('a key supply started ahead needs the count it was made for');
  }
  try {
    return await enrollDevices(options, devices);
  } finally {
    devices.keys?.stop();
  }
}

function enrollDevices(options: EnrollRun, devices: ManyDevices): Promise<ManyEnrolled> {
  return withEnrollmentRun(options, async ({ stored: run, existing }) => {
    if (run === undefined) throw new UsageError('enrolling many devices needs a profile file');
    const available = run.tokens.size;
    const requested = devices.count;
    if (requested !== undefined && available !== undefined && requested > available) {
      throw new UsageError(
        `--count ${requested} needs ${requested} token pairs, and the tokens file has ${available}`,
      );
    }
    const count = requested ?? available ?? 1;
    const concurrency = devices.concurrency ?? defaultConcurrency();
    const base = devices.name ?? DEFAULT_BULK_NAME;
    // A second run with the same name continues the numbering: names stay unique in the file.
    const first = lastNumberOf(base, existing) + 1;
    // Plain numbers: padding would differ between runs (test-device-09 beside test-device-1).
    const nameOf = (index: number) => `${base}-${first + index}`;
    // The longest name, with its number: only its length can fail after --name was checked.
    await checkProfileName(nameOf(count - 1), `the profile name of device ${count}`);
    const shared = prepareRun(run);
    // An unreachable key server fails once, not once per device (a portal that sends the key
    // inline is asked for it with each sign-in instead).
    if (!run.tokens.mayCarryServerKey) await shared.serverPublicKey();

    devices.onStart?.(count);
    const started = performance.now();
    // Key generation is the CPU-bound part: as many prime searches at once as the devices in
    // flight can use cores, shared by all devices.
    const keys = devices.keys ?? bulkKeySupply(count, concurrency);
    const outcomes = await runPool(
      count,
      concurrency,
      async (i) => {
        const device = await enrollAndStore(run, shared, i, nameOf(i), keys.take());
        if (devices.verify) {
          await checkDevice(device.profile, run.http).catch((error: unknown) => {
            throw isKsctlError(error) ? storedButFailed(error) : error;
          });
        }
        return device;
      },
      { signal: run.signal, onSettled: devices.onSettled },
    ).finally(() => keys.stop());
    return {
      count,
      concurrency,
      seconds: ((performance.now() - started) / 1000).toFixed(1),
      enrolled: outcomes.filter((x) => x.ok).map((x) => x.value.row),
      failed: outcomes.flatMap((x) => (x.ok ? [] : [failure(x, nameOf(x.index))])),
      exitCode: bulkExitCode(outcomes),
    };
  });
}

/** The highest N of the profiles named BASE-N in the file (0 when there are none). */
function lastNumberOf(base: string, set: ProfileSet): number {
  let last = 0;
  for (const profile of set.profiles) {
    const name = profile.name;
    if (typeof name !== 'string' || !name.startsWith(`${base}-`)) continue;
    const digits = name.slice(base.length + 1);
    if (/^\d{1,9}$/.test(digits)) last = Math.max(last, Number(digits));
  }
  return last;
}

function failure(outcome: TaskOutcome<StoredDevice> & { ok: false }, name: string): Failure {
  const { error } = outcome;
  return {
    name,
    message: error.message,
    code: error.code,
    exitCode: error.exitCode,
    serviceCode: error.serviceCode,
    hint: error.hint,
    conversationId: error.conversationId,
  };
}
