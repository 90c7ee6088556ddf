/**
 * Mocks of `ksctl/mock` (`startMock()` of the library) that a test file starts, closed together
 * at its end. Mocks that enroll nobody get a small key server key, which spares generating an
 * RSA-3072 one each.
 */
import { generateKeyPairSync } from 'node:crypto';
import { type Mock, startMock } from '../../src/client/lib/mock.js';

export const smallKeyServerKey = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey;

export function libraryMocks() {
  const started: Mock[] = [];
  return {
    /** A mock with the small key server key, unless `options` give another. */
    async start(options: Parameters<typeof startMock>[0] = {}): Promise<Mock> {
      const m = await startMock({ keyServerKey: smallKeyServerKey, ...options });
      started.push(m);
      return m;
    },
    /** A mock started otherwise, closed with the others. */
    track(m: Mock): Mock {
      started.push(m);
      return m;
    },
    closeAll: () => Promise.all(started.map((m) => m.close())),
  };
}
