/**
 * Conversation ids and temporary file names without node:crypto (src/common/encoding/random-pool.ts):
 * from the kernel's random device, in the shape crypto.randomUUID gives, and no two the same.
 */
import { describe, expect, it } from 'vitest';
import { publicRandomBytes, randomUuid } from '../../src/common/encoding/random-pool.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('random ids and names', () => {
  it('are version 4 UUIDs, all different, across many pools', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5000; i++) {
      const id = randomUuid();
      expect(id).toMatch(UUID_V4);
      seen.add(id);
    }
    expect(seen.size).toBe(5000);
  });

  it('give each byte once, of any length, and look random', () => {
    const counts = new Array<number>(256).fill(0);
    const taken: string[] = [];
    for (const length of [1, 6, 16, 255, 256, 257, 1000]) {
      const bytes = publicRandomBytes(length);
      expect(bytes.length).toBe(length);
      taken.push(bytes.toString('hex'));
      for (const byte of bytes) counts[byte]! += 1;
    }
    expect(new Set(taken).size).toBe(taken.length);
    // 1791 bytes: every value is expected about 7 times; none may take a tenth of them.
    expect(Math.max(...counts)).toBeLessThan(180);
    expect(counts.filter((count) => count > 0).length).toBeGreaterThan(200);
  });
});
