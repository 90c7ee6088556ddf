/**
 * A journaled request as lines that send it again (request-detail.ts): a `curl` line and a `ksctl`
 * line, without secrets (the dev token as `$KSCTL_TOKEN`), quoted for a POSIX shell. A device
 * request's cid is used once, so its lines carry a fresh cid with the envelope sealed again for
 * it; one the mock cannot seal again is sent as it was, with a note saying why.
 */
import type { JournalEntryWithBodies, MockInfo, JournalMessage } from '../../common/mock/wire.js';
import { REDACTED_TEXT } from '../../common/http/redact.js';
import { makeCid, parseCid } from '../../common/device/cid.js';
import {
  checkAttributeSignature,
  openEnvelope,
  sealEnvelope,
  signAttributes,
} from '../../common/device/crypto.js';
import { createSignatureAad, modifySignatureAad } from '../../common/device/dialects.js';
import { parseJsonObject } from '../../common/encoding/json.js';
import { mapProtectionKeys } from './device.js';
import type { SealedBodies } from '../journal/request-journal.js';
import type { MockState } from '../model/state.js';

/** Where the mock serves (its info): the replay lines use its scheme and its CA file. */
export type ServedAt = Pick<MockInfo, 'url' | 'caFile'>;

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

export function freshDeviceBody(
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
