/**
 * The service side of enrollment, for the mock: open a register request and seal the answer.
 * Stateless: replay (40005, 40902), users, tokens and keyspace state are the mock's checks,
 * made on what `openRegistration` returns. Shares every crypto step with the client (crypto.ts).
 */
import type { KeyObject } from 'node:crypto';
import type { EnrollmentPayload, RegisterResponse } from '../../../common/enrollment/wire.js';
import { InternalError } from '../../../common/errors.js';
import { splitAuth } from '../../../common/enrollment/auth.js';
import { decodeBase64Strict, decodeUtf8Strict } from '../../../common/encoding/base64.js';
import { CauseCode } from '../../../common/enrollment/causes.js';
import {
  AES_IV_BYTES,
  AES_KEY_BYTES,
  aesCtrDecrypt,
  aesCtrEncrypt,
  decodeRsaSpkiBase64,
  oaepDecrypt,
  oaepEncrypt,
  RSA_MODULUS_BITS,
  RSA_SIGNATURE_BYTES,
  rsaModulusBits,
  verifyPackage,
} from '../../../common/enrollment/crypto.js';
import { isJsonObject, parseJsonObject } from '../../../common/encoding/json.js';
import { isKeyspace } from '../../../common/enrollment/device-id.js';

/** The causes openRegistration can find by itself. */
export type RegistrationRejectCode =
  | typeof CauseCode.invalidJson
  | typeof CauseCode.invalidKeyspace
  | typeof CauseCode.sessionKeyUndecodable
  | typeof CauseCode.payloadUndecodable
  | typeof CauseCode.signatureUndecodable
  | typeof CauseCode.signatureMalformed
  | typeof CauseCode.sessionKeyUndecryptable
  | typeof CauseCode.payloadUndecryptable
  | typeof CauseCode.publicKeyUnparsable
  | typeof CauseCode.signatureInvalid
  | typeof CauseCode.authTokenUndecodable;

export type OpenedRegistration =
  | {
      ok: true;
      devicePublicKey: KeyObject;
      /** Normalised to the `TKRespPubKDERB64` member name. */
      payload: EnrollmentPayload;
      stoken: string;
      /** With exactly one leading comma, however many the client sent. */
      uidauth: string;
      /** K.CD:KS, needed to seal the answer. */
      aesKey: Buffer;
    }
  | { ok: false; code: RegistrationRejectCode };

/** `p` must hold the IV and at least one byte of ciphertext. */
const MIN_PACKAGE_BYTES = AES_IV_BYTES + 1;

/**
 * Checks a register request and opens it. `body` is either the raw body (a string or bytes,
 * parsed here, which is what the mock should pass) or an already parsed JSON value; a string is
 * always taken as raw text.
 *
 * Order: the request's shape (40001), then `k` (40004), then the Base64 and sizes of s, p, g
 * (41703, 41704, 41706, 40007), all cheap and needing no key; then the private-key step, `s`
 * (40102), then `p` (40104); then the device public key inside `p` (40002), which the
 * signature check needs (40103); only after the signature holds is AUTH read (40008), so
 * nothing from an unauthenticated package is interpreted.
 */
export function openRegistration(
  body: unknown,
  pathKeyspace: string,
  serverPrivateKey: KeyObject,
): OpenedRegistration {
  const fail = (code: RegistrationRejectCode): OpenedRegistration => ({ ok: false, code });

  const request = readRequestFields(body);
  if (request === undefined) return fail(CauseCode.invalidJson);
  const { k, p, s, g } = request;
  if (!isKeyspace(k) || k !== pathKeyspace) return fail(CauseCode.invalidKeyspace);

  const sealedKey = decodeBase64Strict(s);
  if (sealedKey === undefined) return fail(CauseCode.sessionKeyUndecodable);
  const sealedPackage = decodeBase64Strict(p);
  if (sealedPackage === undefined || sealedPackage.length < MIN_PACKAGE_BYTES) {
    return fail(CauseCode.payloadUndecodable);
  }
  const signature = decodeBase64Strict(g);
  if (signature === undefined) return fail(CauseCode.signatureUndecodable);
  if (signature.length !== RSA_SIGNATURE_BYTES) return fail(CauseCode.signatureMalformed);

  const aesKey = oaepDecrypt(serverPrivateKey, sealedKey);
  if (aesKey === undefined || aesKey.length !== AES_KEY_BYTES) {
    return fail(CauseCode.sessionKeyUndecryptable);
  }
  const members = parseJsonObject(decodeUtf8Strict(aesCtrDecrypt(aesKey, sealedPackage)));
  if (members === undefined) return fail(CauseCode.payloadUndecryptable);

  const publicKeyText = members.TKRespPubKDERB64 ?? members.tkRespPubKDERB64;
  if (typeof publicKeyText !== 'string') return fail(CauseCode.publicKeyUnparsable);
  const devicePublicKey = decodeRsaSpkiBase64(publicKeyText);
  if (devicePublicKey === undefined || rsaModulusBits(devicePublicKey) !== RSA_MODULUS_BITS) {
    return fail(CauseCode.publicKeyUnparsable);
  }
  if (!verifyPackage(devicePublicKey, p, signature)) return fail(CauseCode.signatureInvalid);

  const auth = members.AUTH;
  const token = typeof auth === 'string' ? splitAuth(auth) : undefined;
  if (typeof auth !== 'string' || token === undefined) return fail(CauseCode.authTokenUndecodable);
  return {
    ok: true,
    devicePublicKey,
    payload: { TKRespPubKDERB64: publicKeyText, AUTH: auth },
    stoken: token.stoken,
    uidauth: token.uidauth,
    aesKey,
  };
}

/** What a register request's package held, as far as it opened (the mock's request journal). */
export interface InspectedRegistration {
  /** The device public key's size, once the package opened that far. */
  keyBits?: number;
  /** Whether `g` verifies over `p` with that key. */
  signatureValid?: boolean;
  /** AUTH's two tokens: only to tell the user they name, never to show. */
  stoken?: string;
  uidauth?: string;
  /** Why it opened no further. */
  stopped?: string;
}

/**
 * A register request opened step by step as openRegistration opens it, going on where that one
 * refuses (a key of another size, a signature that does not verify), to tell what the package
 * held. For showing a request already answered, never for deciding one.
 */
export function inspectRegistration(
  body: unknown,
  serverPrivateKey: KeyObject,
): InspectedRegistration {
  const request = readRequestFields(body);
  if (request === undefined) return { stopped: 'the body is not JSON with k, p, s and g' };
  const sealedKey = decodeBase64Strict(request.s);
  const sealedPackage = decodeBase64Strict(request.p);
  const signature = decodeBase64Strict(request.g);
  if (sealedKey === undefined || sealedPackage === undefined || signature === undefined) {
    return { stopped: 's, p or g is not Base64' };
  }
  const aesKey = oaepDecrypt(serverPrivateKey, sealedKey);
  if (aesKey === undefined || aesKey.length !== AES_KEY_BYTES) {
    return { stopped: "s does not open with the key server's private key" };
  }
  if (sealedPackage.length < MIN_PACKAGE_BYTES) return { stopped: 'p is too short' };
  const members = parseJsonObject(decodeUtf8Strict(aesCtrDecrypt(aesKey, sealedPackage)));
  if (members === undefined) return { stopped: 'p does not open to JSON' };
  const publicKeyText = members.TKRespPubKDERB64 ?? members.tkRespPubKDERB64;
  const devicePublicKey =
    typeof publicKeyText === 'string' ? decodeRsaSpkiBase64(publicKeyText) : undefined;
  if (devicePublicKey === undefined) return { stopped: 'p holds no RSA public key' };
  const keyBits = rsaModulusBits(devicePublicKey);
  const signatureValid = verifyPackage(devicePublicKey, request.p, signature);
  const token = typeof members.AUTH === 'string' ? splitAuth(members.AUTH) : undefined;
  if (token === undefined) return { keyBits, signatureValid, stopped: 'p holds no AUTH' };
  return { keyBits, signatureValid, stoken: token.stoken, uidauth: token.uidauth };
}

function readRequestFields(body: unknown): Record<'k' | 'p' | 's' | 'g', string> | undefined {
  const value =
    typeof body === 'string' || body instanceof Uint8Array
      ? parseJsonObject(typeof body === 'string' ? body : decodeUtf8Strict(body))
      : body;
  if (!isJsonObject(value)) return undefined;
  const { k, p, s, g } = value;
  if (typeof k !== 'string' || typeof p !== 'string') return undefined;
  if (typeof s !== 'string' || typeof g !== 'string') return undefined;
  return { k, p, s, g };
}

export interface SealInput {
  deviceId: string;
  devicePublicKey: KeyObject;
  /** K.CD:KS from openRegistration. */
  aesKey: Buffer;
  keys: {
    /** SEP.CD:KS, 32 bytes. */
    cdEi: Buffer;
    /** SEP.CD:IDC, 32 bytes. */
    cdIdc: Buffer;
  };
}

/** The 200 answer: SEPAESK = Base64(IV || AES-CTR(K, cdEi)), SEPAESK-IDC = Base64(OAEP(cdIdc)). */
export function sealResponse(input: SealInput): RegisterResponse {
  const { cdEi, cdIdc } = input.keys;
  if (cdEi.length !== AES_KEY_BYTES || cdIdc.length !== AES_KEY_BYTES) {
    throw new InternalError(`SEP keys must be ${AES_KEY_BYTES} bytes each`);
  }
  return {
    deviceID: input.deviceId,
    SEPAESK: aesCtrEncrypt(input.aesKey, cdEi).toString('base64'),
    'SEPAESK-IDC': oaepEncrypt(input.devicePublicKey, cdIdc).toString('base64'),
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The X-Conversation-ID header: `Basic <uuid>` as the interface says, or a bare UUID as the
 * Ionic SDKs send. On success `conversationId` is the header as sent, to echo as `error.cid`.
 */
export function validateConversationId(
  header: string | string[] | undefined,
):
  | { ok: true; conversationId: string }
  | { ok: false; code: typeof CauseCode.conversationIdInvalid } {
  if (typeof header === 'string') {
    const uuid = header.startsWith('Basic ') ? header.slice('Basic '.length) : header;
    if (UUID.test(uuid)) return { ok: true, conversationId: header };
  }
  return { ok: false, code: CauseCode.conversationIdInvalid };
}
