/**
 * The fast reading of a device's SubjectPublicKeyInfo (src/common/enrollment/crypto.ts rsaKeyOfSpki) must
 * agree with OpenSSL's general decoder on every input: the same key where both read one, a
 * refusal where OpenSSL refuses. Checked on real keys of several sizes and on seeded mutations of
 * them (KSCTL_FUZZ_SEED=N replays a run).
 */
import { createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeRsaSpkiBase64, rsaKeyOfSpki } from '../../src/common/enrollment/crypto.js';
import { prng } from '../helpers/random.js';

const SEED = Number(process.env.KSCTL_FUZZ_SEED ?? 20_261_125);
const MUTATIONS = 3000;

/** OpenSSL's own reading, the reference: the key's PKCS #1 DER, or undefined when refused. */
function reference(der: Buffer): string | undefined {
  try {
    const key = createPublicKey({ key: der, format: 'der', type: 'spki' });
    return key.asymmetricKeyType === 'rsa' ? pkcs1(key) : undefined;
  } catch {
    return undefined;
  }
}

const pkcs1 = (key: KeyObject) => key.export({ type: 'pkcs1', format: 'der' }).toString('hex');

function read(der: Buffer): string | undefined {
  const key = decodeRsaSpkiBase64(der.toString('base64'));
  return key === undefined ? undefined : pkcs1(key);
}

function flipBit(der: Buffer, at: number, bit: number): Buffer {
  der.writeUInt8(der.readUInt8(at) ^ (1 << bit), at);
  return der;
}

const keys = [1024, 2048, 3072].map((bits) =>
  generateKeyPairSync('rsa', { modulusLength: bits }).publicKey.export({
    type: 'spki',
    format: 'der',
  }),
);

describe('rsaKeyOfSpki', () => {
  it('finds the PKCS #1 key inside the usual rsaEncryption SPKI of every size', () => {
    for (const der of keys) {
      expect(rsaKeyOfSpki(der)?.toString('hex')).toBe(reference(der));
    }
  });

  it('leaves other algorithms and other encodings to OpenSSL', () => {
    const pss = generateKeyPairSync('rsa-pss', { modulusLength: 1024 }).publicKey;
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey;
    for (const key of [pss, ec]) {
      expect(rsaKeyOfSpki(key.export({ type: 'spki', format: 'der' }))).toBeUndefined();
    }
    // A long form length where the short one fits is not DER.
    const der = keys[0]!;
    const padded = Buffer.concat([Buffer.from([0x30, 0x83, 0x00]), der.subarray(2)]);
    expect(rsaKeyOfSpki(padded)).toBeUndefined();
  });

  it(`agrees with OpenSSL on ${MUTATIONS} mutated keys (seed ${SEED})`, () => {
    const pick = prng(SEED).int;
    let fastPathTaken = 0;
    for (let i = 0; i < MUTATIONS; i++) {
      const der = Buffer.from(keys[pick(keys.length)]!);
      let mutated: Buffer;
      switch (pick(4)) {
        case 0: // flip a bit in the header, where the structure is
          mutated = flipBit(der, pick(40), pick(8));
          break;
        case 1: // flip a bit anywhere
          mutated = flipBit(der, pick(der.length), pick(8));
          break;
        case 2: // cut short
          mutated = der.subarray(0, pick(der.length));
          break;
        default: // something appended
          mutated = Buffer.concat([der, Buffer.alloc(1 + pick(4), pick(256))]);
      }
      if (rsaKeyOfSpki(mutated) !== undefined) fastPathTaken++;
      expect(read(mutated), `seed ${SEED}, case ${i}: ${mutated.toString('hex')}`).toBe(
        reference(mutated),
      );
    }
    // Flips inside the modulus keep the structure: the fast path is really exercised.
    expect(fastPathTaken).toBeGreaterThan(MUTATIONS / 10);
  });
});
