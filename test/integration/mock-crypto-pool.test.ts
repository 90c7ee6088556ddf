/**
 * The mock's crypto pool (src/mock/model/enrollment/crypto-pool.ts) on real worker threads. Run from the
 * TypeScript sources the pool works inline (there is no compiled worker), so this suite starts the
 * built mock from dist/, as `ksctl mock serve` runs it: registrations opened on a worker give the
 * same answers and causes as before, and closing the server ends the workers.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { causeByCode } from '../../src/common/enrollment/causes.js';
import type { MockServer } from '../../src/mock/server/server.js';
import { assertBuilt } from '../helpers/spawn.js';
import {
  type Answer,
  craft,
  mintTokens,
  newCid,
  register,
  testKeys,
} from './mock-enroll-fixtures.js';

let mock: MockServer;

/** The compiled mock, whose pool finds its compiled worker. */
async function startBuilt(): Promise<MockServer> {
  const built = '../../dist/mock/server/server.js';
  const { MockServer: BuiltMock } = (await import(built)) as { MockServer: typeof MockServer };
  const { server } = await testKeys();
  return BuiltMock.start({ port: 0, keyServerKey: server.privateKey });
}

const workersOf = (server: MockServer) =>
  (server as unknown as { crypto: { workers: unknown[] } }).crypto.workers;

beforeAll(async () => {
  assertBuilt();
  mock = await startBuilt();
});
afterAll(() => mock?.close());

const alice = () => mintTokens(mock, { user: 'alice' });

function expectCause(code: number, answer: Answer, cid: string): void {
  const cause = causeByCode(code)!;
  expect(answer.status).toBe(cause.status);
  expect(answer.body).toEqual({ error: { cid, code, message: cause.message } });
}

describe('registrations opened on worker threads', () => {
  it('enroll a device, on a worker of the pool', async () => {
    const answer = await register(mock, await craft({ tokens: await alice() }));
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ deviceID: expect.stringMatching(/^ABcd\.1\./) });
    expect(workersOf(mock).length).toBeGreaterThan(0);
  });

  it.each([
    [40102, 'a session key of the wrong size', () => ({ sealedKey: randomBytes(16) })],
    [40103, 'a signature over other text', () => ({ signedText: 'something else' })],
    [40002, 'a device key that is not an SPKI', () => ({ members: { TKRespPubKDERB64: 'AAAA' } })],
  ])('%s: %s', async (code, _how, options) => {
    const cid = newCid();
    const body = await craft({ tokens: await alice(), ...options() });
    expectCause(code, await register(mock, body, { cid }), cid);
  });

  it('16 registrations at once all enroll, each pair once', async () => {
    const bodies = await Promise.all(
      Array.from({ length: 16 }, async () => craft({ tokens: await alice() })),
    );
    const answers = await Promise.all(bodies.map((body) => register(mock, body)));
    expect(answers.map((a) => a.status)).toEqual(bodies.map(() => 200));
    const ids = new Set(answers.map((a) => (a.body as { deviceID: string }).deviceID));
    expect(ids.size).toBe(16);
  });

  it('the workers end with the server', async () => {
    const other = await startBuilt();
    const body = await craft({ tokens: await mintTokens(other, { user: 'alice' }) });
    expect((await register(other, body)).status).toBe(200);
    const workers = workersOf(other);
    expect(workers.length).toBeGreaterThan(0);
    await other.close();
    expect(workers).toHaveLength(0);
  });
});
