/**
 * Loading and saving profile files safely: atomic replacement, 0600 files in a 0700 directory,
 * and read-modify-write serialised within the process (mutex) and across processes (lock file).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import {
  ensurePrivateDirectory,
  resolveWriteTarget,
  writeFileAtomic,
} from '../../common/files/atomic-write.js';
import type { DecodedProfileFile } from './codec.js';
import { checkPersistorSecrets, decodeProfileFile, encodeProfileFile } from './codec.js';
import type { FileLockOptions } from '../../common/files/file-lock.js';
import { withFileLock } from '../../common/files/file-lock.js';
import { errnoCode, fileError } from '../../common/files/fs-errors.js';
import {
  INPUT_LIMIT_ENV,
  INPUT_MAX_BYTES,
  readBoundedFile,
} from '../../common/files/bounded-read.js';
import { InputError, KsctlError } from '../../common/errors.js';
import { withKeyedMutex } from './keyed-mutex.js';
import { problemsError, profileProblems } from './profile-json.js';
import type { PersistorSpec, ProfileSet } from './types.js';
import { emptyProfileSet } from './types.js';

export type ProfileSetMutation = (set: ProfileSet) => ProfileSet | Promise<ProfileSet>;

/** A missing file is an empty set with no active profile; a file of zero bytes is an InputError. */
export async function loadProfiles(spec: PersistorSpec): Promise<ProfileSet> {
  return (await readProfileFile(spec)).set;
}

/** Replaces the whole file. Password files are written as 1.1 unless the spec asks for 1.0. */
export async function saveProfiles(spec: PersistorSpec, set: ProfileSet): Promise<void> {
  assertStorable(set, spec.path);
  const bytes = encodeProfileFile(spec, set, spec.passwordVersion);
  await withProfileFileLock(spec.path, () => writeFileAtomic(path.resolve(spec.path), bytes));
}

/**
 * Reads, lets `mutate` change the set, and writes it back, with no other writer in between.
 * If reading, decrypting, `mutate` or validation fails, the file is left as it was.
 * `mutate` receives a copy and may change it in place. Returns the set as written.
 */
export async function updateProfiles(
  spec: PersistorSpec,
  mutate: ProfileSetMutation,
  options?: FileLockOptions,
): Promise<ProfileSet> {
  checkPersistorSecrets(spec);
  return withProfileFileLock(
    spec.path,
    async () => {
      const current = await readProfileFile(spec);
      const next = await mutate(copyProfileSet(current.set));
      assertStorable(next, spec.path);
      // An existing password file keeps its version, so readers on older SDKs keep working.
      const version = spec.passwordVersion ?? current.passwordVersion;
      await writeFileAtomic(path.resolve(spec.path), encodeProfileFile(spec, next, version));
      return next;
    },
    options,
  );
}

/** The profile files the current async context holds for a whole task (withProfilesHeld). */
const held = new AsyncLocalStorage<ReadonlySet<string>>();

/**
 * Runs `task` holding both locks of a profile file (creating its directory if needed). For
 * writers that do not read the file first, such as convert. A symbolic link is locked at the
 * file it points to, so writers going through the link and writers of the file take turns.
 * Inside withProfilesHeld of the same file, the holder's own writers only take turns in-process.
 */
export async function withProfileFileLock<T>(
  filePath: string,
  task: () => Promise<T>,
  options?: FileLockOptions,
): Promise<T> {
  const resolved = await resolveWriteTarget(filePath);
  const holding = held.getStore();
  if (holding?.has(resolved)) return withKeyedMutex(`${resolved}\0held`, task);
  await ensurePrivateDirectory(path.dirname(resolved));
  const inside = new Set([...(holding ?? []), resolved]);
  return withKeyedMutex(resolved, () =>
    withFileLock(resolved, () => held.run(inside, task), options),
  );
}

/** A profile file a task holds: read once as the task starts, written through by its updates. */
export interface HeldProfiles {
  readonly path: string;
  /** The profiles the file holds: as read, then as the task's own updates wrote them. */
  readonly set: ProfileSet;
  /**
   * Lets `mutate` change the set, and writes it: as updateProfiles does, from the set held
   * instead of the file read again. Updates of one task take turns.
   */
  update(mutate: ProfileSetMutation): Promise<ProfileSet>;
}

/**
 * Holds a profile file for a whole task, such as an enrollment run: the file is locked and read
 * (decrypted) first, so a file that cannot be read, decrypted or written fails before anything is
 * spent, and no other process writes it until the task ends. The file is read once: the task's
 * updates start from the set held, unless the file changed on disk meanwhile (a writer that takes
 * no lock, such as an app's SDK), which is then read again.
 */
export async function withProfilesHeld<T>(
  spec: PersistorSpec,
  task: (held: HeldProfiles) => Promise<T>,
  options?: FileLockOptions,
): Promise<T> {
  checkPersistorSecrets(spec);
  return withProfileFileLock(
    spec.path,
    async () => {
      // Taken before the read: a change in between then shows as one, never as the file read.
      let seen = await fileIdentity(spec.path);
      let current = await readProfileFile(spec);
      const held: HeldProfiles = {
        path: spec.path,
        get set() {
          return current.set;
        },
        update: (mutate) =>
          withProfileFileLock(spec.path, async () => {
            const now = await fileIdentity(spec.path);
            if (now !== seen) {
              seen = now;
              current = await readProfileFile(spec);
            }
            const next = await mutate(copyProfileSet(current.set));
            assertStorable(next, spec.path);
            const version = spec.passwordVersion ?? current.passwordVersion;
            await writeFileAtomic(path.resolve(spec.path), encodeProfileFile(spec, next, version));
            current = { ...current, set: next, passwordVersion: version };
            seen = await fileIdentity(spec.path);
            return next;
          }),
      };
      return task(held);
    },
    options,
  );
}

/** Which file is at `filePath`, and its size and change time: what tells another writer's work. */
async function fileIdentity(filePath: string): Promise<string> {
  const info = await stat(filePath, { bigint: true }).catch((error: unknown) => {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw fileError('read', filePath, error);
  });
  return info === undefined ? 'none' : `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}`;
}

async function readProfileFile(spec: PersistorSpec): Promise<DecodedProfileFile> {
  let bytes: Buffer;
  try {
    bytes = await readBoundedFile(spec.path, {
      bytes: spec.maxBytes ?? INPUT_MAX_BYTES,
      what: 'profile file',
      raise: `set ${INPUT_LIMIT_ENV} to a larger number of MiB`,
    });
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') {
      return { set: emptyProfileSet() };
    }
    if (error instanceof KsctlError) throw error;
    throw fileError('read', spec.path, error);
  }
  if (bytes.length === 0) {
    // No SDK writes a file of no bytes (an empty plaintext file is `{"profiles":[]}` at least, a
    // password file has its header): it is not one, and is said to be rather than read as none.
    throw new InputError(`${spec.path} is empty (0 bytes): it is not a ${spec.kind} profile file`, {
      hint: {
        cli: 'delete it (ksctl enroll then writes a new one), or point --persistor-path at the profile file',
        code: 'delete it (enroll() then writes a new one), or open the profile file at its real path',
      },
    });
  }
  // A missing file needs no secret to read: there is nothing to decrypt.
  checkPersistorSecrets(spec);
  return decodeProfileFile(spec, bytes);
}

function copyProfileSet(set: ProfileSet): ProfileSet {
  return {
    ...set,
    activeDeviceId: set.activeDeviceId,
    profiles: set.profiles.map((profile) => ({ ...profile })),
  };
}

function assertStorable(set: ProfileSet, source: string): void {
  const details = set.profiles.flatMap((profile, index) =>
    profileProblems(profile, `profiles[${index}]`),
  );
  if (typeof set.activeDeviceId !== 'string') {
    details.push({ path: 'activeDeviceId', message: 'must be a string' });
  }
  if (details.length > 0) {
    throw problemsError(`refusing to write ${source}`, details);
  }
}
