/**
 * A device request of the journal opened (request-detail.ts): the request envelope with the
 * device's SEP.CD:IDC key and the cid, its attribute texts parsed and protected values opened with
 * SEP.CD:KS; the answer's envelope the same way (protected values of fetched keys with the key's
 * data key); a sealed error's code with its meaning. The keys come from a keyring: the mock's own,
 * or a profile file's (`ksctl mock record --profiles`).
 */
import type { JournalEntryWithBodies, OpenedDeviceRequest } from '../../common/mock/wire.js';
import { REDACTED_TEXT } from '../../common/http/redact.js';
import { deviceCause } from '../../common/device/causes.js';
import { parseCid } from '../../common/device/cid.js';
import {
  aad,
  isProtectedAttribute,
  openEnvelope,
  openProtectedValues,
} from '../../common/device/crypto.js';
import { isJsonObject, parseJsonObject } from '../../common/encoding/json.js';
import { JOURNAL_BODY_KEPT_BYTES, type SealedBodies } from '../journal/request-journal.js';
import type { MockState } from '../model/state.js';
import type { DeviceKeys } from '../model/enrollment/store.js';

const DEVICE_PATH = /^\/v2\.([34])\//;

/** The body as kept, when it is whole (a body cut at 64 KiB cannot be opened). */
export function wholeBody(
  body: Buffer | undefined,
  bytes: number,
  what: string,
  problems: string[],
): string | undefined {
  if (body === undefined || body.length === 0) {
    if (bytes > 0) problems.push(`the mock did not read the ${what}`);
    return undefined;
  }
  if (body.length < bytes) {
    problems.push(
      `the ${what} (${bytes} bytes) is longer than the ${JOURNAL_BODY_KEPT_BYTES / 1024} KiB the journal keeps: it cannot be opened`,
    );
    return undefined;
  }
  return body.toString('utf8');
}

/**
 * The keys a device request is opened with: the mock's own (its enrolled devices and the keys it
 * made), or those of a profile file (`ksctl mock record --profiles`).
 */
export interface DeviceKeyring {
  /** The device's SEP keys, when they are known. */
  keysOf(deviceId: string): DeviceKeys | undefined;
  /** A data key by its id, to open the protected values of a fetched key with. */
  dataKey(keyId: string): Buffer | undefined;
  /** Why a device's keys are not known, in a problem's words. */
  unknown(deviceId: string): string;
  /** Reads the keys again where they may have changed (a profile file). */
  refresh?(): Promise<void>;
}

export function mockKeyring(state: MockState): DeviceKeyring {
  return {
    keysOf: (deviceId) => state.enrollment.keysOf(deviceId),
    dataKey: (keyId) => {
      const stored = state.keys.get(keyId);
      return stored === undefined ? undefined : Buffer.from(stored.key, 'hex');
    },
    unknown: (deviceId) =>
      `device ${deviceId} is not enrolled with this mock (never, or before a reset): its keys are unknown`,
  };
}

/**
 * A journaled device request opened with `keyring`, what could not be opened said in `problems`
 * (the entry as the journal gives it, and its messages unredacted).
 */
export function openDeviceRequest(
  keyring: DeviceKeyring,
  entry: JournalEntryWithBodies,
  raw: SealedBodies,
  problems: string[],
): OpenedDeviceRequest | undefined {
  const dialect = DEVICE_PATH.exec(entry.path)?.[1] === '3' ? 'v2.3' : 'v2.4';
  const text = wholeBody(raw.requestBody, entry.requestBytes, 'request body', problems);
  if (text === undefined) return undefined;
  const body = parseJsonObject(text);
  if (typeof body?.cid !== 'string' || typeof body.envelope !== 'string') {
    problems.push('the body is not a device request {"cid": "…", "envelope": "…"}');
    return undefined;
  }
  const cid = body.cid;
  const deviceId = parseCid(cid)?.deviceId;
  if (deviceId === undefined) {
    problems.push(`the cid ${JSON.stringify(cid.slice(0, 200))} names no device`);
    return undefined;
  }
  const keys = keyring.keysOf(deviceId);
  if (!keys) {
    problems.push(keyring.unknown(deviceId));
    return undefined;
  }
  const opened: OpenedDeviceRequest = {
    cid,
    deviceId,
    keyId: `SEP.CD:IDC of ${deviceId}`,
    dialect,
  };
  const request = openEnvelope(keys.cdIdc, cid, body.envelope);
  if (request.ok) opened.clear = clearRequest(request.content, keys.cdEi);
  else problems.push(`the request envelope ${notOpened(request.reason)}`);

  const answerText = wholeBody(raw.responseBody, entry.responseBytes, 'answer', problems);
  const answer = answerText === undefined ? undefined : parseJsonObject(answerText);
  if (typeof answer?.envelope === 'string' && typeof answer.cid === 'string') {
    const content = openEnvelope(keys.cdIdc, answer.cid, answer.envelope);
    if (!content.ok) {
      problems.push(`the answer envelope ${notOpened(content.reason)}`);
    } else {
      opened.answer = clearAnswer(keyring, content.content);
      const error = isJsonObject(content.content) ? content.content.error : undefined;
      if (isJsonObject(error) && typeof error.code === 'number') {
        const cause = deviceCause(error.code);
        opened.sealedError = {
          code: error.code,
          meaning: cause?.message ?? 'not a code this service uses',
          ...(typeof error.message === 'string' ? { message: error.message } : {}),
          ...(cause ? { hint: cause.journalHint ?? cause.hint } : {}),
        };
      }
    }
  }
  return opened;
}

function notOpened(reason: 'not-base64' | 'not-authentic' | 'not-json'): string {
  if (reason === 'not-base64') return 'is not Base64';
  if (reason === 'not-json') return 'opened, but does not hold JSON';
  return "does not open with the device's SEP.CD:IDC key and the cid (AES-GCM refused it)";
}

/** An attribute text parsed, each protected value opened and marked; the text as sent otherwise. */
function clearAttributes(text: unknown, open: (name: string, sealed: string) => unknown): unknown {
  if (typeof text !== 'string') return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  if (!isJsonObject(parsed)) return text;
  return Object.fromEntries(
    Object.entries(parsed).map(([name, values]): [string, unknown] => {
      if (!isProtectedAttribute(name)) return [name, values];
      const sealed = Array.isArray(values) ? values[0] : values;
      return [name, typeof sealed === 'string' ? open(name, sealed) : values];
    }),
  );
}

function opened(values: string[] | undefined, sealed: string): unknown {
  return values === undefined ? { decrypted: false, sealed } : { decrypted: true, values };
}

/** The request envelope's content: attribute texts of create and modify parsed and opened. */
function clearRequest(content: unknown, ksKey: Buffer): unknown {
  const open = (name: string, sealed: string) =>
    opened(openProtectedValues(ksKey, name, sealed), sealed);
  return mapProtectionKeys(content, (item) => ({
    ...item,
    ...('cattrs' in item ? { cattrs: clearAttributes(item.cattrs, open) } : {}),
    ...('mattrs' in item ? { mattrs: clearAttributes(item.mattrs, open) } : {}),
  }));
}

/**
 * A device message's content with each object of its `data['protection-keys']` mapped; content
 * of any other shape as it is.
 */
export function mapProtectionKeys(
  content: unknown,
  map: (item: Record<string, unknown>) => unknown,
): unknown {
  const data = isJsonObject(content) ? content.data : undefined;
  const items = isJsonObject(data) ? data['protection-keys'] : undefined;
  if (!isJsonObject(content) || !isJsonObject(data) || !Array.isArray(items)) return content;
  return {
    ...content,
    data: {
      ...data,
      'protection-keys': items.map((item: unknown) => (isJsonObject(item) ? map(item) : item)),
    },
  };
}

/**
 * The answer envelope's content: wrapped data keys left out, attribute texts of fetched keys
 * parsed and their protected values opened with the key's data key.
 */
function clearAnswer(keyring: DeviceKeyring, content: unknown): unknown {
  return mapProtectionKeys(content, (item) => {
    const id = typeof item.id === 'string' ? item.id : '';
    const dataKey = keyring.dataKey(id);
    const open = (_name: string, sealed: string) =>
      dataKey
        ? opened(openProtectedValues(dataKey, aad(id), sealed), sealed)
        : { decrypted: false, sealed };
    return {
      ...item,
      ...('key' in item ? { key: REDACTED_TEXT } : {}),
      ...('cattrs' in item ? { cattrs: clearAttributes(item.cattrs, open) } : {}),
      ...('mattrs' in item ? { mattrs: clearAttributes(item.mattrs, open) } : {}),
    };
  });
}
