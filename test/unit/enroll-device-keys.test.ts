/**
 * Device key pairs, fast (issue 11): one enrollment searches both primes at once; bulk
 * enrollment's supply of keys is tested in rsa-keygen.test.ts.
 */
import { createSign, createVerify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deviceKeySource, searchSlots } from '../../src/client/enroll/device-keys.js';

describe('deviceKeySource', () => {
  it('makes a complete RSA-3072 pair with both primes searched at once', async () => {
    const { publicKey, privateKey } = await deviceKeySource.generate({ searchesAtOnce: 2 });
    expect(privateKey.asymmetricKeyDetails?.modulusLength).toBe(3072);
    const signature = createSign('sha256').update('device').sign(privateKey);
    expect(createVerify('sha256').update('device').verify(publicKey, signature)).toBe(true);
  });
});

describe('searchSlots', () => {
  it('leaves one thread of the pool free and honours UV_THREADPOOL_SIZE', () => {
    expect(searchSlots({ UV_THREADPOOL_SIZE: '2' })).toBe(1);
    expect(searchSlots({ UV_THREADPOOL_SIZE: '1' })).toBe(1);
    expect(searchSlots({})).toBeLessThanOrEqual(3);
    expect(searchSlots({ UV_THREADPOOL_SIZE: 'many' })).toBe(searchSlots({}));
    expect(searchSlots({})).toBeGreaterThanOrEqual(1);
  });
});

describe('deviceKeySource.supply', () => {
  it('hands out distinct RSA-3072 pairs for every device', async () => {
    const supply = deviceKeySource.supply(2, 2);
    const [a, b] = await Promise.all([supply.take(), supply.take()]);
    supply.stop();
    for (const pair of [a, b])
      expect(pair.privateKey.asymmetricKeyDetails?.modulusLength).toBe(3072);
    const modulus = (pair: typeof a) => pair.publicKey.export({ format: 'jwk' }).n;
    expect(modulus(a)).not.toBe(modulus(b));
  });
});
