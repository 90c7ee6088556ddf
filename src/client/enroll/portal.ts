/**
 * The enrollment portal's sign-in (docs/design.md 2.1): a form POST to
 * `{enrollment_url}/keyspace/{ks}/register` whose answer carries the token pair and the URLs in
 * `X-Ionic-Reg-*` response headers. A password sign-in returns STOKEN and UIDAUTH; an e-mail
 * sign-in returns the UIDAUTH only, the STOKEN being the code e-mailed to the user.
 */
import type { KeyObject } from 'node:crypto';
import type { ApiClient } from '../api/client.js';
import { PORTAL_HEADERS } from '../../common/enrollment/wire.js';
import { describeAnswer } from '../api/errors.js';
import { AuthError, ServiceError } from '../../common/errors.js';
import { decodeRsaSpkiBase64 } from '../../common/enrollment/crypto.js';

export type PortalCredentials =
  { kind: 'password'; username: string; password: string } | { kind: 'email'; email: string };

export interface PortalAnswer {
  /** Absent for an e-mail sign-in. */
  stoken?: string;
  uidauth: string;
  /** From X-Ionic-Reg-Ionic-Url, or the first of X-Ionic-Reg-Ionic-API-Urls (later SDKs). */
  apiUrl?: string;
  pubkeyUrl?: string;
  /** The key server public key sent inline (X-Ionic-Reg-Pubkey, later SDKs). */
  serverPublicKey?: KeyObject;
  keyspace?: string;
}

export function portalUrl(enrollmentUrl: string, keyspace: string): string {
  return `${enrollmentUrl.replace(/\/+$/, '')}/keyspace/${encodeURIComponent(keyspace)}/register`;
}

export async function portalSignIn(
  http: ApiClient,
  enrollmentUrl: string,
  keyspace: string,
  credentials: PortalCredentials,
  signal?: AbortSignal,
): Promise<PortalAnswer> {
  const form: Record<string, string> =
    credentials.kind === 'password'
      ? { username: credentials.username, password: credentials.password }
      : { email: credentials.email };
  const who = credentials.kind === 'password' ? credentials.username : credentials.email;
  const answer = await http
    .request<unknown>('POST', portalUrl(enrollmentUrl, keyspace), {
      // Form-encoded, as the portal expects; the trace shows it as a non-JSON body, never its text.
      body: new URLSearchParams(form).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      what: `enrollment portal sign-in as ${who}`,
      signal,
    })
    .catch((error: unknown) => {
      throw credentials.kind === 'password' ? passwordRefused(error, who) : error;
    });
  const header = (name: string): string | undefined => {
    const value = answer.headers[name];
    const text = Array.isArray(value) ? value[0] : value;
    return text === undefined || text.trim() === '' ? undefined : text.trim();
  };
  const uidauth = header(PORTAL_HEADERS.uidauth);
  const stoken = header(PORTAL_HEADERS.stoken);
  if (uidauth === undefined || (credentials.kind === 'password' && stoken === undefined)) {
    const url = portalUrl(enrollmentUrl, keyspace);
    const came = describeAnswer(answer.body, header('content-type'));
    throw new ServiceError(
      `the enrollment portal at ${url} sent no token pair (it answered ${came})`,
      {
        hint: 'check the enrollment URL: it should be the portal of your tenant',
        conversationId: answer.conversationId,
        status: answer.status,
      },
    );
  }
  const inlineKey = header(PORTAL_HEADERS.pubkey);
  const serverPublicKey =
    inlineKey === undefined ? undefined : decodeRsaSpkiBase64(inlineKey.replace(/\s+/g, ''));
  if (inlineKey !== undefined && serverPublicKey === undefined) {
    throw new ServiceError(
      `the enrollment portal at ${portalUrl(enrollmentUrl, keyspace)} sent an X-Ionic-Reg-Pubkey that is not the Base64 DER of an RSA public key`,
      {
        hint: 'the portal (or a proxy in front of it) is misbehaving; quote the conversation id to its operators',
        conversationId: answer.conversationId,
        status: answer.status,
      },
    );
  }
  const apiUrls = header(PORTAL_HEADERS.apiUrls)
    ?.split(',')
    .map((url) => url.trim())
    .filter((url) => url !== '');
  return {
    stoken,
    uidauth,
    apiUrl: header(PORTAL_HEADERS.apiUrl) ?? apiUrls?.[0],
    pubkeyUrl: header(PORTAL_HEADERS.pubkeyUrl),
    serverPublicKey,
    keyspace: header(PORTAL_HEADERS.keyspace),
  };
}

/** A 401 to a password sign-in is the user name or the password, not a token: the hint says so. */
function passwordRefused(error: unknown, username: string): unknown {
  if (!(error instanceof AuthError) || error.status !== 401) return error;
  return new AuthError(`the enrollment portal refused the sign-in as ${username}`, {
    hint: {
      cli: 'check the user name (--username) and the portal password (--password-file or KSCTL_PORTAL_PASSWORD)',
      code: 'check portal.username and portal.password',
    },
    conversationId: error.conversationId,
    status: error.status,
    serviceCode: error.serviceCode,
  });
}
