/**
 * Device key pairs, fast (issue 11): one enrollment searches both primes at once, and bulk
 * enrollment generates keys ahead of the devices, a bounded number at once.
 */
import { createSign, createVerify } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { deviceKeySource, KeyPairSupply, searchSlots } from '../../src/enroll/device-keys.js';
import type { DeviceKeyPair } from '../../src/enroll/protocol.js';

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

describe('KeyPairSupply', () => {
  const original = deviceKeySource.generate;
  afterEach(() => {
    deviceKeySource.generate = original;
  });

  /** A generator whose pairs are finished by the test, one at a time. */
  function controlled() {
    const pending: (() => void)[] = [];
    let made = 0;
    deviceKeySource.generate = () =>
      new Promise<DeviceKeyPair>((resolve) => {
        const n = ++made;
        pending.push(() => resolve({ n } as unknown as DeviceKeyPair));
      });
    return {
      get running() {
        return pending.length;
      },
      get made() {
        return made;
      },
      finishOldest: () => pending.shift()!(),
    };
  }
  const tick = () => new Promise((resolve) => setImmediate(resolve));

  it('keeps `ahead` generations going, each slot freed once its pair is both made and taken', async () => {
    const gen = controlled();
    const supply = new KeyPairSupply(5, 2);
    expect(gen.made).toBe(2);
    const first = supply.take();
    gen.finishOldest();
    await tick();
    // Made and taken: the third generation starts while the first device registers.
    expect(await first).toEqual({ n: 1 });
    expect(gen.made).toBe(3);
    // Made but not taken: it keeps its slot, so nothing piles up.
    gen.finishOldest();
    await tick();
    expect(gen.made).toBe(3);
    expect(await supply.take()).toEqual({ n: 2 });
    await tick();
    expect(gen.made).toBe(4);
    const rest = [supply.take(), supply.take(), supply.take()];
    while (gen.running > 0) {
      gen.finishOldest();
      await tick();
    }
    expect(await Promise.all(rest)).toEqual([{ n: 3 }, { n: 4 }, { n: 5 }]);
    expect(gen.made).toBe(5);
  });

  it('with one slot, generates the next pair while the previous one is in use', async () => {
    const gen = controlled();
    const supply = new KeyPairSupply(3, 1);
    const first = supply.take();
    expect(gen.made).toBe(1);
    gen.finishOldest();
    await first;
    await tick();
    expect(gen.made).toBe(2);
  });
});
