/**
 * The mock portal's STOKEN and UIDAUTH (docs/design.md 2.2):
 *   STOKEN  = `I.` + base64url(16 random bytes)
 *   UIDAUTH = `,I` + base64url(claims JSON) + `.` + base64url(HMAC-SHA256(secret, claims-part + "|" + STOKEN))
 * The signature covers STOKEN, so a UIDAUTH validates only together with its own STOKEN.
 */
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { TokenPair } from '../../../common/enrollment/wire.js';
import { STOKEN_PREFIX, UIDAUTH_PREFIX } from '../../../common/enrollment/auth.js';
import { decodeBase64UrlStrict, decodeUtf8Strict } from '../../../common/encoding/base64.js';
import { CauseCode } from '../../../common/enrollment/causes.js';
import { parseJsonObject } from '../../../common/encoding/json.js';

export const TOKEN_TTL_MS_DEFAULT = 10 * 60 * 1000;

const STOKEN_RANDOM_BYTES = 16;
const HMAC_BYTES = 32;

export interface TokenClaims {
  /** Absent only in tokens minted to exercise cause 45102. */
  uid?: string;
  tenant: string;
  keyspace: string;
  /** Issued at, epoch seconds (JWT convention). */
  iat: number;
  /** Expires at, epoch seconds. */
  exp: number;
  /** Unique per pair, so the mock can remember which pairs have enrolled. */
  jti: string;
}

export interface MintOptions {
  secret: string | Buffer;
  uid?: string;
  tenant: string;
  keyspace: string;
  ttlMs?: number;
  /** Epoch milliseconds; defaults to the clock. */
  now?: number;
}

export function mintTokenPair(options: MintOptions): TokenPair {
  const now = options.now ?? Date.now();
  const ttlMs = options.ttlMs ?? TOKEN_TTL_MS_DEFAULT;
  const claims: TokenClaims = {
    ...(options.uid === undefined ? {} : { uid: options.uid }),
    tenant: options.tenant,
    keyspace: options.keyspace,
    iat: Math.floor(now / 1000),
    exp: Math.floor((now + ttlMs) / 1000),
    jti: randomUUID(),
  };
  const stoken = STOKEN_PREFIX + randomBytes(STOKEN_RANDOM_BYTES).toString('base64url');
  const claimsPart = Buffer.from(JSON.stringify(claims), 'utf8').toString('base64url');
  const signaturePart = hmac(options.secret, claimsPart, stoken).toString('base64url');
  return { stoken, uidauth: `${UIDAUTH_PREFIX}${claimsPart}.${signaturePart}` };
}

function hmac(secret: string | Buffer, claimsPart: string, stoken: string): Buffer {
  return createHmac('sha256', secret).update(`${claimsPart}|${stoken}`, 'utf8').digest();
}

export type TokenRejectCode =
  | typeof CauseCode.authTokenUndecodable
  | typeof CauseCode.tokenIncorrect
  | typeof CauseCode.userAttributesMissing;

export type VerifiedTokens =
  { ok: true; claims: TokenClaims & { uid: string } } | { ok: false; code: TokenRejectCode };

/**
 * Verifies a pair as the mock's enrollment endpoint receives it (after openRegistration split
 * AUTH). The line between the two "bad token" causes:
 *   40008 (could not be decoded): what is wrong can be seen without the secret — STOKEN not
 *     `I.<…>`, UIDAUTH not `,I<base64url>.<base64url>`, or a signature part that is not 32 bytes;
 *     also claims that fail to decode although correctly signed (only a signer bug does that).
 *   40105 (token is incorrect): the shape is right but the HMAC does not match (tampered claims,
 *     another STOKEN, another secret — even if the claims part is itself garbage, since the
 *     signature is checked before the claims are read), or the token has expired.
 *   45102: a valid, unexpired token whose claims carry no `uid`.
 * Whether the claims' keyspace is the one enrolled into is the caller's check (40105).
 */
export function verifyTokenPair(
  stoken: string,
  uidauth: string,
  secret: string | Buffer,
  now: number = Date.now(),
): VerifiedTokens {
  const fail = (code: TokenRejectCode): VerifiedTokens => ({ ok: false, code });

  if (!stoken.startsWith(STOKEN_PREFIX) || stoken.length === STOKEN_PREFIX.length) {
    return fail(CauseCode.authTokenUndecodable);
  }
  if (!uidauth.startsWith(UIDAUTH_PREFIX)) return fail(CauseCode.authTokenUndecodable);
  const parts = uidauth.slice(UIDAUTH_PREFIX.length).split('.');
  const [claimsPart, signaturePart] = parts;
  if (parts.length !== 2 || claimsPart === undefined || signaturePart === undefined) {
    return fail(CauseCode.authTokenUndecodable);
  }
  const claimsBytes = decodeBase64UrlStrict(claimsPart);
  const signature = decodeBase64UrlStrict(signaturePart);
  if (claimsBytes === undefined || claimsBytes.length === 0 || signature?.length !== HMAC_BYTES) {
    return fail(CauseCode.authTokenUndecodable);
  }

  if (!timingSafeEqual(signature, hmac(secret, claimsPart, stoken))) {
    return fail(CauseCode.tokenIncorrect);
  }

  const claims = readClaims(claimsBytes);
  if (claims === undefined) return fail(CauseCode.authTokenUndecodable);
  if (Math.floor(now / 1000) >= claims.exp) return fail(CauseCode.tokenIncorrect);
  const { uid } = claims;
  if (typeof uid !== 'string' || uid.length === 0) return fail(CauseCode.userAttributesMissing);
  return { ok: true, claims: { ...claims, uid } };
}

function readClaims(bytes: Buffer): TokenClaims | undefined {
  const value = parseJsonObject(decodeUtf8Strict(bytes));
  if (value === undefined) return undefined;
  const { uid, tenant, keyspace, iat, exp, jti } = value;
  if (typeof tenant !== 'string' || typeof keyspace !== 'string' || typeof jti !== 'string') {
    return undefined;
  }
  if (typeof iat !== 'number' || typeof exp !== 'number') return undefined;
  // A uid of the wrong type counts as missing (45102), not as an undecodable token.
  return { ...(typeof uid === 'string' ? { uid } : {}), tenant, keyspace, iat, exp, jti };
}
