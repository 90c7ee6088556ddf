/**
 * The enrollment side under `{enrollment_url}` (docs/design.md 2, 2.1): the key server public key and
 * the enrollment portal's sign-in, which answers with response headers.
 *
 * Portal sign-in, as a form, JSON or multipart/form-data (anything else: 415, naming those):
 *   `username=&password=` → 200 with STOKEN, UIDAUTH and the URLs; a wrong password, an unknown
 *     user or a user of another tenant → the same 401, so the answer does not tell which.
 *   `email=` → 200 with the same headers but no STOKEN: the STOKEN goes to the outbox as the
 *     registration code. An unknown address gets the same answer (so the portal does not tell
 *     which addresses exist), with a UIDAUTH whose STOKEN nobody ever sees, and nothing is sent.
 * Disabled users still get tokens: their registration then fails with 40101, as on the service.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { PORTAL_HEADERS, type TokenPair } from '../../../common/enrollment/wire.js';
import { MarkingsErrorCode } from '../../../common/markings/wire.js';
import type { MockInfo } from '../../../common/mock/wire.js';
import { CauseCode } from '../../../common/enrollment/causes.js';
import { causeError, ENROLLMENT_PATH } from '../../model/enrollment/errors.js';
import { mintFor } from './admin-routes.js';
import { MockHttpError, type MockResponse } from '../../kit/http.js';
import { type Route, route } from '../../request/route.js';
import type { MockKeyspace, MockState, MockUser } from '../../model/state.js';

/** A user name, a password or an address: a sign-in form is small. */
const FORM_MAX_BYTES = 64 * 1024;

export function portalRoutes(state: MockState, info: () => MockInfo): Route[] {
  return [
    route('GET', `${ENROLLMENT_PATH}/keyspace/:keyspace/pubkey`, 'anyone', async (req) => {
      knownKeyspace(state, req.params.keyspace!);
      return { status: 200, text: (await state.enrollment.keyServer()).spkiBase64 };
    }),
    route('POST', `${ENROLLMENT_PATH}/keyspace/:keyspace/register`, 'device', async (req) => {
      const keyspace = knownKeyspace(state, req.params.keyspace!);
      // Read from the body only: a query string would put the password in the request journal.
      const raw = await req.body();
      if (raw.length > FORM_MAX_BYTES) {
        throw new MockHttpError(
          413,
          MarkingsErrorCode.payloadTooLarge,
          `a sign-in form is at most ${FORM_MAX_BYTES} bytes`,
        );
      }
      const form = signInFields(req.headers['content-type'], raw);
      const email = form.get('email');
      const username = form.get('username');
      const portal = { info: info(), pubkey: (await state.enrollment.keyServer()).spkiBase64 };
      if (email !== undefined && email !== '') return emailSignIn(state, portal, keyspace, email);
      if (username !== undefined && username !== '') {
        return passwordSignIn(state, portal, keyspace, username, form.get('password') ?? '');
      }
      throw new MockHttpError(
        400,
        MarkingsErrorCode.badRequest,
        `send username and password, or email, as ${SIGN_IN_TYPES.join(', ')}`,
      );
    }),
  ];
}

/** The content types a sign-in may come in. */
export const SIGN_IN_TYPES = [
  'application/x-www-form-urlencoded',
  'application/json',
  'multipart/form-data',
] as const;

/**
 * The sign-in's fields, read as its content type says: a form as a form, JSON as a JSON object
 * of strings, multipart as its parts. Anything else is a 415 naming the types taken; a body that
 * its type does not describe is a 400.
 */
function signInFields(typeHeader: string | undefined, raw: Buffer): Map<string, string> {
  const type = (typeHeader ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded') {
    // As a browser's form: a byte that is not UTF-8 is read as U+FFFD, as before.
    return new Map(new URLSearchParams(raw.toString('utf8')));
  }
  if (type === 'application/json') {
    let value: unknown;
    try {
      value = JSON.parse(utf8Body(raw, 'JSON'));
    } catch {
      throw unreadableSignIn('the body is not JSON');
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw unreadableSignIn('the body is not a JSON object');
    }
    const fields = new Map<string, string>();
    for (const [name, field] of Object.entries(value)) {
      if (typeof field === 'string') fields.set(name, field);
    }
    return fields;
  }
  if (type === 'multipart/form-data') return multipartFields(typeHeader!, raw);
  throw new MockHttpError(
    415,
    MarkingsErrorCode.unsupportedMediaType,
    `a sign-in is sent as ${SIGN_IN_TYPES.join(', ')}; not ${type === '' ? 'without a Content-Type' : type.slice(0, 100)}`,
  );
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

function utf8Body(raw: Buffer, what: string): string {
  try {
    return UTF8.decode(raw);
  } catch {
    throw unreadableSignIn(`the ${what} body is not UTF-8`);
  }
}

function unreadableSignIn(why: string): MockHttpError {
  return new MockHttpError(400, MarkingsErrorCode.badRequest, `${why}: cannot read the sign-in`);
}

/** The text fields of a multipart/form-data body (RFC 7578); files are left out. */
function multipartFields(typeHeader: string, raw: Buffer): Map<string, string> {
  const boundary = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(typeHeader);
  const mark = boundary?.[1] ?? boundary?.[2];
  if (mark === undefined) throw unreadableSignIn('multipart/form-data without a boundary');
  const text = utf8Body(raw, 'multipart');
  const parts = text.split(`--${mark}`);
  if (parts.length < 3 || !parts.at(-1)!.startsWith('--')) {
    throw unreadableSignIn('the multipart body does not end with its boundary');
  }
  const fields = new Map<string, string>();
  for (const part of parts.slice(1, -1)) {
    const end = part.indexOf('\r\n\r\n');
    if (!part.startsWith('\r\n') || end < 0 || !part.endsWith('\r\n')) {
      throw unreadableSignIn('a part of the multipart body has no headers');
    }
    const head = part.slice(2, end);
    const name = /^content-disposition:\s*form-data;(?:.*;)?\s*name="([^"]*)"/im.exec(head)?.[1];
    if (name === undefined || /;\s*filename=/i.test(head)) continue;
    fields.set(name, part.slice(end + 4, -2));
  }
  return fields;
}

function knownKeyspace(state: MockState, id: string): MockKeyspace {
  const keyspace = state.keyspaces.get(id);
  if (!keyspace) throw causeError(CauseCode.keyspaceNotFound);
  return keyspace;
}

/** What every sign-in answer carries besides the tokens. */
interface PortalFacts {
  info: MockInfo;
  /** The key server public key, Base64 DER. */
  pubkey: string;
}

function passwordSignIn(
  state: MockState,
  portal: PortalFacts,
  keyspace: MockKeyspace,
  username: string,
  password: string,
): MockResponse {
  const user = state.users.get(username);
  const known = user?.tenant === keyspace.tenant && user.password !== undefined;
  if (!known || !samePassword(user.password!, password)) {
    throw new MockHttpError(401, MarkingsErrorCode.unauthorized, 'wrong user name or password');
  }
  const pair = mintFor(state, keyspace, user.name);
  return signedIn(portal, keyspace, pair, true, 'signed in');
}

function emailSignIn(
  state: MockState,
  portal: PortalFacts,
  keyspace: MockKeyspace,
  email: string,
): MockResponse {
  const user = userByEmail(state, keyspace.tenant, email);
  // An unknown address still gets a well-formed UIDAUTH; its STOKEN is dropped here.
  const pair = mintFor(state, keyspace, user?.name ?? email);
  if (user) {
    state.enrollment.send({
      to: user.email!,
      keyspace: keyspace.id,
      code: pair.stoken,
      time: new Date().toISOString(),
    });
  }
  return signedIn(portal, keyspace, pair, false, 'if the address is known, a code was sent to it');
}

function userByEmail(state: MockState, tenant: string, email: string): MockUser | undefined {
  const wanted = email.trim().toLowerCase();
  for (const user of state.users.values()) {
    if (user.tenant === tenant && user.email?.toLowerCase() === wanted) return user;
  }
  return undefined;
}

function signedIn(
  { info, pubkey }: PortalFacts,
  keyspace: MockKeyspace,
  pair: TokenPair,
  withStoken: boolean,
  text: string,
): MockResponse {
  return {
    status: 200,
    text,
    headers: {
      ...(withStoken ? { [PORTAL_HEADERS.stoken]: pair.stoken } : {}),
      [PORTAL_HEADERS.uidauth]: pair.uidauth,
      [PORTAL_HEADERS.apiUrl]: info.apiUrl,
      [PORTAL_HEADERS.pubkeyUrl]: `${info.enrollmentUrl}/keyspace/${keyspace.id}/pubkey`,
      [PORTAL_HEADERS.keyspace]: keyspace.id,
      // The two headers later vendor SDKs read (docs/design.md 2.1).
      [PORTAL_HEADERS.apiUrls]: info.apiUrl,
      [PORTAL_HEADERS.pubkey]: pubkey,
    },
  };
}

/** Compares digests, so the time taken does not tell how much of the password was right. */
function samePassword(expected: string, given: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(expected), digest(given));
}
