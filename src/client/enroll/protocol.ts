/**
 * The client side of enrollment (service interface 4.2): build the request `{k, p, s, g}` and
 * recover the two SEP keys from the answer. Pure apart from randomness; the caller does HTTP.
 */
import { type KeyObject, randomBytes } from 'node:crypto';
import type { EnrollmentPayload, RegisterRequest } from '../../common/enrollment/wire.js';
import { InternalError, ServiceError } from '../../common/errors.js';
import { makeAuth } from '../../common/enrollment/auth.js';
import { decodeBase64Strict } from '../../common/encoding/base64.js';
import {
  AES_IV_BYTES,
  AES_KEY_BYTES,
  aesCtrDecrypt,
  aesCtrEncrypt,
  encodeSpkiBase64,
  oaepDecrypt,
  oaepEncrypt,
  parseServerPublicKey,
  RSA_MODULUS_BITS,
  rsaModulusBits,
  signPackage,
} from '../../common/enrollment/crypto.js';
import { isJsonObject } from '../../common/encoding/json.js';
import { assertKeyspace } from '../../common/enrollment/device-id.js';

export { makeAuth } from '../../common/enrollment/auth.js';
export {
  assertKeyspace,
  isKeyspace,
  keyspaceOfDeviceId,
} from '../../common/enrollment/device-id.js';

export interface DeviceKeyPair {
  publicKey: KeyObject;
  /** S.CD, the device's ephemeral private key. */
  privateKey: KeyObject;
}

export interface RegistrationInput {
  keyspace: string;
  stoken: string;
  uidauth: string;
  /** The key server public key, as fetched (Base64 DER SPKI text) or already parsed. */
  serverPublicKey: string | KeyObject;
}

/** What the client must keep between sending the request and reading the answer. Secret. */
export interface RegistrationSession {
  /** K.CD:KS, the ephemeral AES key that also decrypts SEPAESK. */
  aesKey: Buffer;
  devicePrivateKey: KeyObject;
}

export interface RecoveredKeys {
  deviceId: string;
  /** SEP.CD:KS, from SEPAESK. */
  aesCdEiKey: Buffer;
  /** SEP.CD:IDC, from SEPAESK-IDC. */
  aesCdIdcKey: Buffer;
}

/** Builds the register request body and the session needed to read its answer. */
export function buildRegistration(
  input: RegistrationInput,
  deviceKeys: DeviceKeyPair,
): { request: RegisterRequest; session: RegistrationSession } {
  const keyspace = assertKeyspace(input.keyspace);
  const auth = makeAuth(input.stoken, input.uidauth);
  const serverPublicKey =
    typeof input.serverPublicKey === 'string'
      ? parseServerPublicKey(input.serverPublicKey)
      : input.serverPublicKey;
  // The service rejects any other size (cause 40002); failing here names the real culprit.
  if (rsaModulusBits(deviceKeys.publicKey) !== RSA_MODULUS_BITS) {
    throw new InternalError(`the device key pair is not RSA-${RSA_MODULUS_BITS}`);
  }

  const payload: EnrollmentPayload = {
    TKRespPubKDERB64: encodeSpkiBase64(deviceKeys.publicKey),
    AUTH: auth,
  };
  const aesKey = randomBytes(AES_KEY_BYTES);
  const p = aesCtrEncrypt(aesKey, Buffer.from(JSON.stringify(payload), 'utf8')).toString('base64');
  const s = oaepEncrypt(serverPublicKey, aesKey).toString('base64');
  const g = signPackage(deviceKeys.privateKey, p).toString('base64');
  return {
    request: { k: keyspace, p, s, g },
    session: { aesKey, devicePrivateKey: deviceKeys.privateKey },
  };
}

/**
 * Recovers SEP.CD:KS and SEP.CD:IDC from a 200 answer (a RegisterResponse, checked here since it
 * arrives as untrusted JSON). Anything off is a ServiceError: the service answered, but not
 * with what the contract promises.
 */
export function recoverKeys(
  response: unknown,
  session: RegistrationSession,
  conversationId?: string,
): RecoveredKeys {
  const malformed = (what: string): ServiceError =>
    new ServiceError(`the enrollment service's answer was malformed: ${what}`, {
      hint: 'the service (or a proxy in front of it) is misbehaving; quote the conversation ID to its operators',
      conversationId,
      status: 200,
    });

  if (!isJsonObject(response)) throw malformed('it is not a JSON object');
  const deviceId = response.deviceID;
  const sepAesK = response.SEPAESK;
  const sepAesKIdc = response['SEPAESK-IDC'];
  if (typeof deviceId !== 'string' || deviceId.length === 0) {
    throw malformed('deviceID is missing or not a string');
  }
  if (typeof sepAesK !== 'string') throw malformed('SEPAESK is missing or not a string');
  if (typeof sepAesKIdc !== 'string') throw malformed('SEPAESK-IDC is missing or not a string');

  const sealedEi = decodeBase64Strict(sepAesK);
  if (sealedEi === undefined) throw malformed('SEPAESK is not Base64');
  if (sealedEi.length !== AES_IV_BYTES + AES_KEY_BYTES) {
    throw malformed(`SEPAESK does not hold an IV and a ${AES_KEY_BYTES}-byte key`);
  }
  const aesCdEiKey = aesCtrDecrypt(session.aesKey, sealedEi);

  const sealedIdc = decodeBase64Strict(sepAesKIdc);
  if (sealedIdc === undefined) throw malformed('SEPAESK-IDC is not Base64');
  const aesCdIdcKey = oaepDecrypt(session.devicePrivateKey, sealedIdc);
  if (aesCdIdcKey === undefined) {
    throw malformed('SEPAESK-IDC does not decrypt with the device key');
  }
  if (aesCdIdcKey.length !== AES_KEY_BYTES) {
    throw malformed(`SEPAESK-IDC does not hold a ${AES_KEY_BYTES}-byte key`);
  }
  return { deviceId, aesCdEiKey, aesCdIdcKey };
}
