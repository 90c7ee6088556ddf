/**
 * IVs and cid nonces are cut from blocks of random bytes drawn at once (src/common/encoding/random-pool.ts):
 * each value must still be fresh, never a slice another value had, across the blocks.
 */
import { describe, expect, it } from 'vitest';
import { makeCid } from '../../src/common/device/cid.js';
import { sealGcmEnvelope, GCM_IV_BYTES } from '../../src/common/encoding/gcm-envelope.js';
import { publicRandomBytes } from '../../src/common/encoding/random-pool.js';

describe('public random bytes', () => {
  it('are as many as asked, and never the same bytes twice, across many blocks', () => {
    const seen = new Set<string>();
    // 2,000 values of 16 bytes span several 4 KiB blocks.
    for (let i = 0; i < 2000; i++) {
      const value = publicRandomBytes(16);
      expect(value.length).toBe(16);
      seen.add(value.toString('hex'));
    }
    expect(seen.size).toBe(2000);
  });

  it('leave earlier values as they were when a new block is drawn', () => {
    const first = publicRandomBytes(16);
    const kept = Buffer.from(first);
    for (let i = 0; i < 1000; i++) publicRandomBytes(13);
    expect(first.equals(kept)).toBe(true);
  });

  it('draw a larger value on its own', () => {
    const [one, two] = [publicRandomBytes(1000), publicRandomBytes(1000)];
    expect(one.length).toBe(1000);
    expect(one.equals(two)).toBe(false);
  });

  it('give every sealed envelope its own IV, and every cid its own nonce', () => {
    const key = Buffer.alloc(32, 7);
    const ivs = new Set<string>();
    const nonces = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const sealed = sealGcmEnvelope(key, Buffer.from('aad'), Buffer.from('same text'));
      ivs.add(sealed.subarray(0, GCM_IV_BYTES).toString('hex'));
      nonces.add(makeCid('ABcd.1.device', '2.4', 1).split('|')[3]!);
    }
    expect(ivs.size).toBe(1000);
    // 4 random bytes: a repeat among 1,000 has a chance of about one in ten thousand.
    expect(nonces.size).toBeGreaterThanOrEqual(999);
  });
});
