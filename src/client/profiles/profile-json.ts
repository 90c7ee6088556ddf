/**
 * The JSON document inside every persistor: `{"activeDeviceId", "profiles": [...]}`.
 * Shared by all formats; the encrypted ones wrap exactly these bytes.
 */
import type { ErrorDetail } from '../../common/errors.js';
import { InputError } from '../../common/errors.js';
import { INPUT_MAX_BYTES } from '../../common/files/bounded-read.js';
import {
  countJsonNodes,
  KEYS_MAX,
  NESTING_MAX,
  nodeBudget,
  tooManyKeysError,
  tooManyValuesError,
} from '../../common/files/node-budget.js';
import { stringifySorted } from './sorted-json.js';
import type { Profile, ProfileSet } from './types.js';

export const PROFILE_KEY_BYTES = 32;
const KEY_HEX = /^[0-9a-fA-F]{64}$/;

/**
 * Keys are written as lower-case hex: the Java SDK's hex decoder only knows `0-9a-f` (upper-case
 * digits decode to garbage there), and the SDK itself writes lower case. Any case is read.
 */
export function encodeProfileSetJson(set: ProfileSet): Buffer {
  const document = {
    ...set.extra,
    activeDeviceId: set.activeDeviceId,
    profiles: set.profiles.map((profile) => ({
      ...profile.extra,
      // Left out when absent, as the vendor's sample persistors write them.
      ...(profile.name === undefined ? {} : { name: profile.name }),
      deviceId: profile.deviceId,
      server: profile.server,
      aesCdIdcKey: profile.aesCdIdcKey.toString('hex'),
      aesCdEiKey: profile.aesCdEiKey.toString('hex'),
      ...(profile.creationTimestamp === undefined
        ? {}
        : { creationTimestamp: profile.creationTimestamp }),
    })),
  };
  return Buffer.from(stringifySorted(document), 'utf8');
}

/** Members of the document and of a profile that ksctl reads; the others are kept as they are. */
const SET_MEMBERS = new Set(['activeDeviceId', 'profiles']);
const PROFILE_MEMBERS = new Set([
  'name',
  'deviceId',
  'server',
  'aesCdIdcKey',
  'aesCdEiKey',
  'creationTimestamp',
]);

/** The members of `record` not in `known`, or undefined when there are none. */
function unknownMembers(
  record: Record<string, unknown>,
  known: ReadonlySet<string>,
): Record<string, unknown> | undefined {
  const extra = Object.entries(record).filter(([key]) => !known.has(key));
  return extra.length === 0 ? undefined : Object.fromEntries(extra);
}

/**
 * Parses and validates the profile document. `source` names the file in messages. Messages
 * never quote field values: they may be keys.
 */
export function parseProfileSetJson(
  bytes: Buffer,
  source: string,
  hint?: string,
  /** The size cap the file was read under (KSCTL_MAX_INPUT_MIB), which sets its node budget. */
  maxBytes?: number,
): ProfileSet {
  const text = stripByteOrderMark(bytes.toString('utf8'));
  // Counted before JSON.parse builds anything: 64 MiB of `[0,0,0` would take gigabytes.
  const budget = nodeBudget(
    maxBytes === undefined ? defaultProfileLimit() : profileLimit(maxBytes),
  );
  const count = countJsonNodes(text, budget.nodes);
  if (count.nodes > budget.nodes) throw tooManyValuesError(source, budget);
  // Unknown members are kept and written back, by recursive code: the depth is bounded here.
  if (count.depth > NESTING_MAX) throw tooDeep(source);
  if (count.widest > KEYS_MAX) throw tooManyKeysError(source, budget.what);
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    // The engine's message can quote file content (keys), so only its position is kept.
    const position = /position (\d+)/.exec(String(error))?.[1];
    const where = position === undefined ? '' : ` (at character ${position})`;
    throw new InputError(`${source} is not a valid profile file: not JSON${where}`, {
      hint: hint ?? 'Check that the file is a profile file and that its persistor type is right.',
    });
  }
  const details = new Details();
  const set = readProfileSet(document, details);
  if (set === undefined || details.count > 0) {
    throw problemsError(`${source} is not a valid profile file`, details.kept, {
      hint: 'The file may be damaged or written by another program; restore it from a backup.',
      count: details.count,
    });
  }
  return set;
}

function tooDeep(source: string): InputError {
  return new InputError(
    `${source} is not a valid profile file: JSON nested deeper than ${NESTING_MAX} levels`,
    { hint: 'The file may be damaged or written by another program; restore it from a backup.' },
  );
}

const profileLimit = (bytes: number) => ({ bytes, what: 'profile file' });
/** The size cap of a profile file when the command sets none: INPUT_MAX_MIB. */
export const defaultProfileLimit = () => profileLimit(INPUT_MAX_BYTES);

/** Problems kept to show: a file of a million broken profiles is counted, not listed. */
const DETAILS_KEPT = 1_000;

class Details {
  readonly kept: ErrorDetail[] = [];
  count = 0;
  push(...details: ErrorDetail[]): void {
    for (const detail of details) {
      this.count += 1;
      if (this.kept.length < DETAILS_KEPT) this.kept.push(detail);
    }
  }
}

/** One InputError for a list of problems: the first in the message, all in `details`. */
export function problemsError(
  lead: string,
  details: ErrorDetail[],
  options: { hint?: string; count?: number } = {},
): InputError {
  const { count = details.length, ...rest } = options;
  const first = details[0];
  const summary = first === undefined ? 'unexpected content' : `${first.path} ${first.message}`;
  const more = count > 1 ? ` (and ${count - 1} more problems)` : '';
  return new InputError(`${lead}: ${summary}${more}`, { ...rest, details });
}

/** The problems of a profile that is about to be stored (empty = valid). */
export function profileProblems(profile: Profile, path = 'profile'): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  if (profile.name !== undefined && typeof profile.name !== 'string') {
    details.push({ path: `${path}.name`, message: 'must be a string' });
  }
  if (typeof profile.deviceId !== 'string' || profile.deviceId.length === 0) {
    details.push({ path: `${path}.deviceId`, message: 'must be a non-empty string' });
  }
  if (typeof profile.server !== 'string') {
    details.push({ path: `${path}.server`, message: 'must be a string' });
  }
  for (const field of ['aesCdIdcKey', 'aesCdEiKey'] as const) {
    const key = profile[field];
    if (!Buffer.isBuffer(key) || key.length !== PROFILE_KEY_BYTES) {
      details.push({
        path: `${path}.${field}`,
        message: `must be ${PROFILE_KEY_BYTES} bytes (${PROFILE_KEY_BYTES * 2} hex characters in a file)`,
      });
    }
  }
  const created = profile.creationTimestamp;
  if (created !== undefined && (!Number.isSafeInteger(created) || created < 0)) {
    details.push({
      path: `${path}.creationTimestamp`,
      message: 'must be a non-negative integer (epoch seconds)',
    });
  }
  return details;
}

function readProfileSet(document: unknown, details: Details): ProfileSet | undefined {
  if (!isRecord(document)) {
    details.push({ path: '(root)', message: 'must be a JSON object' });
    return undefined;
  }
  // The SDKs treat a missing activeDeviceId as "none active".
  const active = document.activeDeviceId ?? '';
  if (typeof active !== 'string') {
    details.push({ path: 'activeDeviceId', message: 'must be a string' });
  }
  if (!Array.isArray(document.profiles)) {
    details.push({ path: 'profiles', message: 'must be an array' });
    return undefined;
  }
  const profiles = document.profiles.flatMap((entry: unknown, index: number) => {
    const profile = readProfile(entry, `profiles[${index}]`, details);
    return profile === undefined ? [] : [profile];
  });
  const extra = unknownMembers(document, SET_MEMBERS);
  return {
    activeDeviceId: typeof active === 'string' ? active : '',
    profiles,
    ...(extra === undefined ? {} : { extra }),
  };
}

function readProfile(entry: unknown, path: string, details: Details): Profile | undefined {
  if (!isRecord(entry)) {
    details.push({ path, message: 'must be a JSON object' });
    return undefined;
  }
  const hexKey = (value: unknown) =>
    typeof value === 'string' && KEY_HEX.test(value) ? Buffer.from(value, 'hex') : undefined;
  // Fields of the wrong type are caught by profileProblems, which checks at run time. A null
  // name or time counts as absent.
  const extra = unknownMembers(entry, PROFILE_MEMBERS);
  const candidate = {
    ...(entry.name === undefined || entry.name === null ? {} : { name: entry.name }),
    deviceId: entry.deviceId,
    server: entry.server,
    aesCdIdcKey: hexKey(entry.aesCdIdcKey),
    aesCdEiKey: hexKey(entry.aesCdEiKey),
    ...(entry.creationTimestamp === undefined || entry.creationTimestamp === null
      ? {}
      : { creationTimestamp: entry.creationTimestamp }),
    ...(extra === undefined ? {} : { extra }),
  } as Profile;
  const problems = profileProblems(candidate, path);
  details.push(...problems);
  return problems.length === 0 ? candidate : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stripByteOrderMark(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
