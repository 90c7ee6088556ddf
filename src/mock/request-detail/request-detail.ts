/**
 * One request of the journal described (`GET /_mock/requests/{id}`, `ksctl mock requests show`,
 * the console): `describeRequest(state, entry)` gives both messages, redacted, and opens what
 * the mock holds the keys to, when asked and never at each request:
 *
 * - a device request (`/v2.3|v2.4/…`): the request envelope opened with the device's SEP.CD:IDC
 *   key and the cid (device/crypto.ts, the mock's own opener), its attribute texts parsed and
 *   protected values opened with SEP.CD:KS and marked `{"decrypted": true, "values": […]}`; the
 *   answer's envelope opened the same way (protected values of fetched keys with the key's data
 *   key; wrapped data keys are left out); a sealed error's code with its meaning (device/causes.ts);
 * - a registration (`POST /v2.x/register/{keyspace}`): the package opened with the key server's
 *   private key: the device key's size, whether the signature verifies, the user AUTH names
 *   (its STOKEN and UIDAUTH are never shown), the device made, the cause of a refusal;
 * - any request: a `curl` line and a `ksctl` line that send it again, without secrets (the dev
 *   token as `$KSCTL_TOKEN`), quoted for a POSIX shell. A device request's cid is used once, so
 *   its lines carry a fresh cid with the envelope sealed again for it (good for five minutes);
 *   one the mock cannot seal again is sent as it was, with a note saying why.
 *
 * What cannot be opened (a device the mock does not know or no longer knows, an envelope that does
 * not open, a body longer than the 64 KiB the journal keeps) is said in `problems`, and the rest
 * is still described.
 */
import { MarkingsErrorCode } from '../../common/markings/wire.js';
import type {
  EnrollmentDetail,
  JournalEntry,
  JournalEntryWithBodies,
  MockInfo,
  JournalMessage,
  OpenedDeviceRequest,
  RequestDetail,
} from '../../common/mock/wire.js';
import { REDACTED_TEXT } from '../../common/http/redact.js';
import { deviceCause } from '../../common/device/causes.js';
import { makeCid, parseCid } from '../../common/device/cid.js';
import {
  aad,
  checkAttributeSignature,
  isProtectedAttribute,
  openEnvelope,
  openProtectedValues,
  sealEnvelope,
  signAttributes,
} from '../../common/device/crypto.js';
import { createSignatureAad, modifySignatureAad } from '../../common/device/dialects.js';
import { causeByCode } from '../../common/enrollment/causes.js';
import { inspectRegistration } from '../model/enrollment/service-side.js';
import { isJsonObject, parseJsonObject } from '../../common/encoding/json.js';
import { verifyTokenPair } from '../model/enrollment/tokens.js';
import { MockHttpError } from '../kit/http.js';
import {
  JOURNAL_BODY_KEPT_BYTES,
  JOURNAL_MAX_ENTRIES,
  type SealedBodies,
} from '../journal/request-journal.js';
import type { JournalSecrets } from '../journal/redaction.js';
import type { MockState } from '../model/state.js';
import type { DeviceKeys } from '../model/enrollment/store.js';

/** Where the mock serves (its info): the replay lines use its scheme and its CA file. */
export type ServedAt = Pick<MockInfo, 'url' | 'caFile'>;

const DEVICE_PATH = /^\/v2\.([34])\//;
const REGISTER_PATH = /^\/v2\.[34]\/register\/([^/?]+)/;

/** `host:port` as a request reached the mock: where a replayed request goes. */
export function hostOf(req: { headers: { host?: string } }): string | undefined {
  const host = req.headers.host;
  // Only a plain host[:port] makes a URL; anything else is left to the fallback.
  return host !== undefined && /^[\w.-]+(:\d{1,5})?$|^\[[\da-f:.]+\](:\d{1,5})?$/i.test(host)
    ? host
    : undefined;
}

/**
 * The request a route names by the id in its path, described: what `GET /_mock/requests/{id}`
 * and the console answer. An id the journal does not hold (any more) is a 404.
 */
export async function describeRequestAt(
  state: MockState,
  id: string,
  served?: ServedAt,
  host?: string,
): Promise<RequestDetail> {
  const detail = /^\d{1,15}$/.test(id)
    ? await describeRequest(state, { id: Number(id) }, served, host)
    : undefined;
  if (detail) return detail;
  throw new MockHttpError(
    404,
    MarkingsErrorCode.notFound,
    `the journal holds no request ${id.slice(0, 50)} (it keeps the newest ${JOURNAL_MAX_ENTRIES.toLocaleString('en')})`,
  );
}

/**
 * The request with that entry's id described, or undefined when the journal no longer holds it.
 * Reads the key server key when it describes a registration (it may still be being generated).
 * `origin` (`http://host:port`, as the describing request reached the mock) stands in for the
 * request's own Host header when the journal let its headers go.
 */
export async function describeRequest(
  state: MockState,
  entry: Pick<JournalEntry, 'id'>,
  served?: ServedAt,
  host?: string,
): Promise<RequestDetail | undefined> {
  const kept = state.journal.get(entry.id);
  const raw = state.journal.sealed(entry.id);
  if (!kept) return undefined;
  const problems: string[] = [];
  const detail: RequestDetail = {
    ...kept,
    ...replayLines(
      state.defaultTenant,
      kept,
      { served, host },
      kept.side === 'device' ? freshDeviceBody(state, kept.path, raw) : undefined,
    ),
  };
  if (raw !== undefined && kept.side === 'device') {
    const opened = openDeviceRequest(mockKeyring(state), kept, raw, problems);
    if (opened) detail.opened = opened;
  } else if (raw !== undefined && REGISTER_PATH.test(kept.path)) {
    detail.enrollment = await describeRegistration(state, kept, raw, problems);
  } else if (raw === undefined && (kept.side === 'device' || REGISTER_PATH.test(kept.path))) {
    problems.push(
      'the journal let this request’s bodies go to stay within its bytes; newer requests kept theirs',
    );
  }
  if (problems.length > 0) detail.problems = problems;
  return scrubbedDetail(state.journal.secrets, detail);
}

/**
 * Whatever was opened goes through the journal's secrets too, each text of it on its own (so no
 * replacement can run across the JSON around it): no secret the journal knows leaves.
 */
export function scrubbedDetail(secrets: JournalSecrets, detail: RequestDetail): RequestDetail {
  const scrub = (text: string) =>
    Buffer.from(secrets.scrub(Buffer.from(text, 'utf8').toString('latin1')), 'latin1').toString(
      'utf8',
    );
  return JSON.parse(
    JSON.stringify(detail, (_name, value: unknown) =>
      typeof value === 'string' ? scrub(value) : value,
    ),
  ) as RequestDetail;
}

/** The body as kept, when it is whole (a body cut at 64 KiB cannot be opened). */
function wholeBody(
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

// ---- device requests ----

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

function mockKeyring(state: MockState): DeviceKeyring {
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
function mapProtectionKeys(
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

// ---- registrations ----

async function describeRegistration(
  state: MockState,
  entry: JournalEntryWithBodies,
  raw: SealedBodies,
  problems: string[],
): Promise<EnrollmentDetail> {
  const keyspace = decodeURIComponent(REGISTER_PATH.exec(entry.path)?.[1] ?? '');
  const detail: EnrollmentDetail = { keyspace };
  const answer = parseJsonObject(raw.responseBody.toString('utf8'));
  if (entry.status === 200 && typeof answer?.deviceID === 'string') {
    detail.deviceId = answer.deviceID;
  }
  const error = isJsonObject(answer?.error) ? answer.error : undefined;
  if (typeof error?.code === 'number') {
    detail.cause = {
      code: error.code,
      meaning: causeByCode(error.code)?.explanation ?? 'not a code this service uses',
    };
  }
  const text = wholeBody(raw.requestBody, entry.requestBytes, 'request body', problems);
  if (text === undefined) return detail;
  const { privateKey } = await state.enrollment.keyServer();
  const package_ = inspectRegistration(text, privateKey);
  if (package_.keyBits !== undefined) detail.keyBits = package_.keyBits;
  if (package_.signatureValid !== undefined) detail.signatureValid = package_.signatureValid;
  if (package_.stopped !== undefined) problems.push(`the package: ${package_.stopped}`);
  if (package_.stoken !== undefined && package_.uidauth !== undefined) {
    // Checked as at the time of the request, so a pair that has since expired still names its user.
    const at = Date.parse(entry.time);
    const verified = verifyTokenPair(
      package_.stoken,
      package_.uidauth,
      state.enrollment.portalSecret,
      Number.isNaN(at) ? Date.now() : at,
    );
    if (verified.ok) detail.user = verified.claims.uid;
    else problems.push('the tokens in AUTH were not minted by this mock since its last reset');
  }
  return detail;
}

// ---- lines to send it again ----

/** A word for a POSIX shell: single-quoted unless it needs no quotes. */
export function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Headers a client sets itself, or that name this one request. */
const LEFT_OUT = new Set([
  'host',
  'content-length',
  'connection',
  'accept-encoding',
  'user-agent',
  'keep-alive',
  'transfer-encoding',
  'sec-fetch-mode',
  'accept-language',
]);

/**
 * A device request as it can be sent again: the same content sealed under a fresh cid (a cid is
 * used once, and must be within five minutes of the mock's clock), or why it cannot be.
 */
type FreshDeviceBody = { body: string; cid: string; sentCid: string } | { refused: string };

function freshDeviceBody(
  state: MockState,
  path: string,
  raw: SealedBodies | undefined,
): FreshDeviceBody {
  const cannot = (why: string): FreshDeviceBody => ({ refused: why });
  if (raw === undefined || raw.requestBody === undefined) {
    return cannot('the journal no longer holds this one’s body');
  }
  const body = parseJsonObject(raw.requestBody.toString('utf8'));
  if (typeof body?.cid !== 'string' || typeof body.envelope !== 'string') {
    return cannot('this body is not a device request {"cid": "…", "envelope": "…"}');
  }
  const parsed = parseCid(body.cid);
  const keys = parsed === undefined ? undefined : state.enrollment.keysOf(parsed.deviceId);
  if (parsed === undefined || keys === undefined) {
    return cannot('its cid names no device this mock knows');
  }
  const content = openEnvelope(keys.cdIdc, body.cid, body.envelope);
  if (!content.ok) return cannot('its envelope does not open');
  const cid = makeCid(parsed.deviceId, parsed.version === undefined ? '2.3' : '2.4');
  const resigned = signedAgain(path, content.content, keys.cdEi, body.cid, cid);
  return {
    body: JSON.stringify({ ...body, cid, envelope: sealEnvelope(keys.cdIdc, cid, resigned) }),
    cid,
    sentCid: body.cid,
  };
}

/**
 * The signatures of a create's or a modify's attributes bind the cid: each one that verified with
 * the cid sent is made again for the fresh one; one that did not stays as it was (and fails again).
 */
function signedAgain(
  path: string,
  content: unknown,
  ksKey: Buffer,
  sentCid: string,
  cid: string,
): unknown {
  const modify = path.endsWith('/keys/modify');
  if (!modify && !path.endsWith('/keys/create')) return content;
  const again = (aadOf: (c: string) => string, text: unknown, signature: unknown) =>
    typeof text === 'string' &&
    typeof signature === 'string' &&
    checkAttributeSignature(ksKey, aadOf(sentCid), text, signature)
      ? signAttributes(ksKey, aadOf(cid), text)
      : signature;
  return mapProtectionKeys(content, (item) => {
    if (modify) {
      const id = typeof item.id === 'string' ? item.id : '';
      const force = item.force === true;
      const msig = again((c) => modifySignatureAad(c, id, force), item.mattrs, item.msig);
      return 'msig' in item ? { ...item, msig } : item;
    }
    const ref = typeof item.ref === 'string' ? item.ref : '';
    return {
      ...item,
      ...('csig' in item
        ? { csig: again((c) => createSignatureAad(c, ref, false), item.cattrs, item.csig) }
        : {}),
      ...('msig' in item
        ? { msig: again((c) => createSignatureAad(c, ref, true), item.mattrs, item.msig) }
        : {}),
    };
  });
}

/**
 * A `curl` line and a `ksctl` line that send a journaled request again, to the host it was sent
 * to (or, when the journal let its headers go, to the host the describing request came in on); in
 * the scheme the mock serves; `defaultTenant` is the tenant whose markings paths the ksctl line
 * writes under the base URL.
 */
export function replayLines(
  defaultTenant: string,
  entry: JournalEntryWithBodies,
  where: { served?: ServedAt; host?: string },
  device?: FreshDeviceBody,
): { curl: string; ksctl: string } {
  const { served } = where;
  const request = withBody(entry.request, device);
  const secure = served?.url.startsWith('https:') === true;
  const host =
    request.headers.host ?? where.host ?? (served ? new URL(served.url).host : '127.0.0.1');
  const url = `${secure ? 'https' : 'http'}://${host}${entry.path}`;
  const headers: string[] = [];
  let auth: string | undefined;
  for (const [name, value] of Object.entries(request.headers)) {
    const lower = name.toLowerCase();
    if (LEFT_OUT.has(lower)) continue;
    if (lower === 'authorization') {
      auth = /^bearer\s/i.test(value) ? 'bearer' : /^basic\s/i.test(value) ? 'basic' : 'other';
      continue;
    }
    // A header whose value was a secret is left out rather than sent as "[redacted]".
    if (value.includes(REDACTED_TEXT) || (lower === 'accept' && value === '*/*')) continue;
    headers.push(`-H ${shellQuote(`${name}: ${value}`)}`);
  }
  // Headers the journal let go: the markings and admin sides take a token, taken to be a bearer.
  if (request.dropped && (entry.side === 'markings' || entry.side === 'admin')) auth ??= 'bearer';
  const parts = ['curl'];
  if (secure && served?.caFile !== undefined) parts.push('--cacert', shellQuote(served.caFile));
  if (entry.method !== 'GET') parts.push('-X', shellQuote(entry.method));
  parts.push(shellQuote(url));
  if (auth === 'bearer') parts.push('-H "Authorization: Bearer $KSCTL_TOKEN"');
  else if (auth === 'basic') parts.push('-u "$KSCTL_USERNAME:$KSCTL_PASSWORD"');
  parts.push(...headers);
  const body = request.bytes === 0 ? undefined : request;
  let note = '';
  if (device !== undefined && 'body' in device) {
    note = '# a fresh cid, the envelope sealed again for it: good for five minutes, once\n';
  } else if (device !== undefined && !request.dropped) {
    note = `# as it was sent: the mock cannot seal it again for a fresh cid (${device.refused}); a cid the service accepted is refused the second time (409)\n`;
  }
  if (body !== undefined) {
    if (body.dropped) {
      // The markings and device sides take JSON only; the Content-Type went with the headers.
      if (entry.side === 'markings' || entry.side === 'device') {
        parts.push("-H 'content-type: application/json'");
      }
      parts.push('--data-binary @body');
      note += `# put the request body (${body.bytes} bytes) in the file body first; the journal let it go, with the headers, to stay within its bytes\n`;
    } else if (body.truncated || body.encoding === 'base64') {
      parts.push('--data-binary @body');
      note += `# put the request body (${body.bytes} bytes) in the file body first; the journal keeps only part of it\n`;
    } else {
      parts.push('--data-binary', shellQuote(body.body));
    }
  }
  return {
    curl: note + parts.join(' '),
    ksctl: ksctlLine(defaultTenant, { ...entry, request }, url),
  };
}

/** The request as kept, or a device request sealed again, its cid header the fresh one too. */
function withBody(request: JournalMessage, device: FreshDeviceBody | undefined): JournalMessage {
  if (device === undefined || !('body' in device)) return request;
  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [
      name,
      value === device.sentCid ? device.cid : value,
    ]),
  );
  return {
    ...request,
    headers,
    body: device.body,
    encoding: 'utf8',
    bytes: Buffer.byteLength(device.body),
    truncated: false,
    dropped: false,
  };
}

/** JSON by its Content-Type, or, when the journal let the headers go, by its text. */
function isJsonBody(request: JournalMessage): boolean {
  const type = request.headers['content-type'];
  if (type !== undefined) return /json/i.test(type);
  if (request.encoding !== 'utf8' || request.truncated || request.dropped) return false;
  try {
    JSON.parse(request.body);
    return true;
  } catch {
    return false;
  }
}

/** `ksctl api …`: a path under the base URL for the default tenant's markings, else the URL. */
function ksctlLine(defaultTenant: string, entry: JournalEntryWithBodies, url: string): string {
  const { request } = entry;
  // A body the journal let go with its headers: its type is unknown, and taken to be JSON.
  if (request.bytes > 0 && !request.dropped && !isJsonBody(request)) {
    return '# ksctl api sends JSON bodies only: use the curl line';
  }
  const tenantPrefix = `/v2/${defaultTenant}/`;
  const under = entry.path.startsWith(tenantPrefix) && entry.side === 'markings';
  const target = under ? entry.path.slice(tenantPrefix.length - 1) : url;
  const parts = ['ksctl', 'api', shellQuote(entry.method), shellQuote(target)];
  const cid = request.headers['x-conversation-id'];
  if (cid !== undefined && entry.side !== 'markings') {
    parts.push('-H', shellQuote(`X-Conversation-ID: ${cid}`));
  }
  if (request.bytes === 0) return parts.join(' ');
  if (request.truncated || request.dropped) return `${parts.join(' ')} --input body`;
  return `printf '%s' ${shellQuote(request.body)} | ${parts.join(' ')} --input -`;
}
