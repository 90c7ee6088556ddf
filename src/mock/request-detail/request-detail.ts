/**
 * One request of the journal described (`GET /_mock/requests/{id}`, `ksctl mock requests show`,
 * the console): `describeRequest(state, entry)` gives both messages, redacted, and opens what
 * the mock holds the keys to, when asked and never at each request:
 * - a device request (`/v2.3|v2.4/…`, device.ts): the request envelope opened with the
 *   device's SEP.CD:IDC key and the cid (device/crypto.ts, the mock's own opener), its attribute
 *   texts parsed and protected values opened with SEP.CD:KS and marked
 *   `{"decrypted": true, "values": […]}`; the answer's envelope opened the same way (protected
 *   values of fetched keys with the key's data key; wrapped data keys are left out); a sealed
 *   error's code with its meaning (device/causes.ts);
 * - a registration (`POST /v2.x/register/{keyspace}`): the package opened with the key server's
 *   private key: the device key's size, whether the signature verifies, the user AUTH names
 *   (its STOKEN and UIDAUTH are never shown), the device made, the cause of a refusal;
 * - any request (replay.ts): a `curl` line and a `ksctl` line that send it again, without
 *   secrets (the dev token as `$KSCTL_TOKEN`), quoted for a POSIX shell. A device request's cid
 *   is used once, so its lines carry a fresh cid with the envelope sealed again for it (good for
 *   five minutes); one the mock cannot seal again is sent as it was, with a note saying why.
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
  RequestDetail,
} from '../../common/mock/wire.js';
import { causeByCode } from '../../common/enrollment/causes.js';
import { inspectRegistration } from '../model/enrollment/service-side.js';
import { isJsonObject, parseJsonObject } from '../../common/encoding/json.js';
import { verifyTokenPair } from '../model/enrollment/tokens.js';
import { MockHttpError } from '../kit/http.js';
import { JOURNAL_MAX_ENTRIES, type SealedBodies } from '../journal/request-journal.js';
import type { JournalSecrets } from '../journal/redaction.js';
import type { MockState } from '../model/state.js';
import { mockKeyring, openDeviceRequest, wholeBody } from './device.js';
import { freshDeviceBody, replayLines, type ServedAt } from './replay.js';

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
