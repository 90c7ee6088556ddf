/**
 * `ksctl mock serve --state DIR` in process: what a restart keeps (docs/design.md 3.2), the lock,
 * reset, and what --dev-token and --seed mean on an existing state. The kill -9 test spawns the
 * real command (test/e2e/mock-state-kill.test.ts).
 */
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { open, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { TokenPair } from '../../src/common/enrollment/wire.js';
import type { Marking } from '../../src/common/markings/wire.js';
import { ApiClient } from '../../src/client/api/client.js';
import { DeviceClient } from '../../src/client/device/client.js';
import { CauseCode } from '../../src/common/enrollment/causes.js';
import { buildRegistration, recoverKeys } from '../../src/client/enroll/protocol.js';
import { UsageError } from '../../src/common/errors.js';
import type { MockServer } from '../../src/mock/server/server.js';
import { type MockServerOptions } from '../../src/mock/server/server.js';
import { startCheckedServer } from '../helpers/mock.js';
import { tempDirs } from '../helpers/temp.js';
import {
  type Answer,
  call,
  mintTokens,
  newCid,
  register,
  startMock,
  testKeys,
} from './mock-enroll-fixtures.js';

const dirs = tempDirs();
afterAll(() => dirs.removeAll());

const codeOf = (answer: Answer) => (answer.body as { error?: { code?: number } }).error?.code;

/** A restart without a key server key: a key in the answers can only have come from the state. */
const restart = (stateDir: string, options: MockServerOptions = {}) =>
  startCheckedServer({ port: 0, stateDir, ...options });

async function enroll(server: MockServer, tokens: TokenPair) {
  const { device } = await testKeys();
  const serverPublicKey = (await call(server, 'GET', '/enrollment/keyspace/ABcd/pubkey')).text;
  const built = buildRegistration({ keyspace: 'ABcd', ...tokens, serverPublicKey }, device);
  const cid = newCid();
  const answer = await register(server, built.request, { cid });
  const keys = answer.status === 200 ? recoverKeys(answer.body, built.session, cid) : undefined;
  return { answer, request: built.request, keys };
}

describe('a restart keeps the state', () => {
  it('markings and values with their ids, versions and timestamps; new ids are never old ones', async () => {
    const dir = await dirs.make();
    let mock = await startMock({ stateDir: dir });
    const created = await call(mock, 'POST', '/v2/dev/markings', {
      admin: true,
      json: { name: 'classification', detail: { values: [{ name: 'public' }, { name: 'x' }] } },
    });
    const id = (created.body as Marking).id;
    const values = (created.body as Marking).detail.values!;
    await call(mock, 'POST', `/v2/dev/markings/${id}/values`, {
      admin: true,
      json: { name: 'secret', description: 'need to know' },
    });
    await call(mock, 'PUT', `/v2/dev/markings/${id}/values/${values[0]!.id}`, {
      admin: true,
      json: { name: 'open' },
    });
    await call(mock, 'DELETE', `/v2/dev/markings/${id}/values/${values[1]!.id}`, { admin: true });
    await call(mock, 'PUT', `/v2/dev/markings/${id}`, {
      admin: true,
      json: { defaultValue: 'open', detail: { description: 'levels' } },
    });
    const doomed = await call(mock, 'POST', '/v2/dev/markings', {
      admin: true,
      json: { name: 'doomed' },
    });
    await call(mock, 'DELETE', `/v2/dev/markings/${(doomed.body as Marking).id}`, { admin: true });
    const before = await call(mock, 'GET', '/v2/dev/markings', { admin: true });
    await mock.close();

    mock = await restart(dir);
    try {
      const after = await call(mock, 'GET', '/v2/dev/markings', { admin: true });
      expect(after.body).toEqual(before.body);
      const marking = (after.body as { Resources: Marking[] }).Resources[0]!;
      expect(marking._version).toBe(5);
      expect(marking.detail.values!.map((v) => v.name)).toEqual(['open', 'secret']);

      // Writes go on where they left off; an id never comes back.
      const oldIds = [id, (doomed.body as Marking).id, ...values.map((v) => v.id)];
      const next = await call(mock, 'POST', `/v2/dev/markings/${id}/values`, {
        admin: true,
        json: { name: 'internal' },
      });
      expect(next.status).toBe(201);
      const again = await call(mock, 'POST', '/v2/dev/markings', {
        admin: true,
        json: { name: 'doomed' },
      });
      expect(oldIds).not.toContain((again.body as Marking).id);
      expect((again.body as Marking).id.slice(8, 18)).not.toBe(id.slice(8, 18));
      const got = await call(mock, 'GET', `/v2/dev/markings/${id}`, { admin: true });
      expect((got.body as Marking)._version).toBe(6);
    } finally {
      await mock.close();
    }
  });

  it('the key server key, devices and their keys, token pairs, replay protection, outbox, faults, tokens and users', async () => {
    const dir = await dirs.make();
    const seed = {
      tokens: [{ token: 'ci-reader', scopes: ['markings:read' as const] }],
      justInTimeUsers: true,
    };
    let mock = await startMock({ stateDir: dir, seed });
    const pair = await mintTokens(mock, { user: 'alice' });
    const first = await enroll(mock, pair);
    expect(first.answer.status).toBe(200);
    // Minted now, used after the restart: the portal's signing secret must persist too.
    const later = await mintTokens(mock, { user: 'carol' });
    await call(mock, 'POST', '/enrollment/keyspace/ABcd/register', {
      form: { email: 'alice@example.com' },
    });
    const outbox = (await call(mock, 'GET', '/_mock/outbox', { admin: true })).body;
    await call(mock, 'PUT', '/_mock/faults', {
      admin: true,
      json: [{ path: '/v2/dev/markings', method: 'POST', status: 503, times: 3 }],
    });
    expect((await call(mock, 'POST', '/v2/dev/markings', { admin: true, json: {} })).status).toBe(
      503,
    );
    await call(mock, 'PUT', '/_mock/users/dave', { admin: true, json: { enabled: false } });
    const pubkey = (await call(mock, 'GET', '/enrollment/keyspace/ABcd/pubkey')).text;
    await mock.close();

    mock = await restart(dir);
    try {
      expect((await call(mock, 'GET', '/enrollment/keyspace/ABcd/pubkey')).text).toBe(pubkey);
      const stored = mock.state.enrollment.keysOf(first.keys!.deviceId)!;
      expect(stored.cdEi.equals(first.keys!.aesCdEiKey)).toBe(true);
      expect(stored.cdIdc.equals(first.keys!.aesCdIdcKey)).toBe(true);
      const devices = (await call(mock, 'GET', '/_mock/devices', { admin: true })).body;
      expect(devices).toEqual([expect.objectContaining({ deviceId: first.keys!.deviceId })]);

      const replayedPackage = await register(mock, first.request);
      expect(codeOf(replayedPackage)).toBe(CauseCode.replayDetected);
      const { answer: replayedPair } = await enroll(mock, pair);
      expect(codeOf(replayedPair)).toBe(CauseCode.replay);
      // carol is unknown: created just in time, a setting from the seed.
      expect((await enroll(mock, later)).answer.status).toBe(200);

      expect((await call(mock, 'GET', '/_mock/outbox', { admin: true })).body).toEqual(outbox);
      expect((await call(mock, 'GET', '/_mock/faults', { admin: true })).body).toEqual([
        { path: '/v2/dev/markings', method: 'POST', status: 503, times: 2 },
      ]);
      const reader = await fetch(`${mock.info.baseUrl}/markings`, {
        headers: { authorization: 'Bearer ci-reader' },
      });
      expect(reader.status).toBe(200);
      const user = await call(mock, 'PUT', '/_mock/users/dave', { admin: true, json: {} });
      expect(user.body).toMatchObject({ name: 'dave', enabled: false });
      expect(user.status).toBe(200);
    } finally {
      await mock.close();
    }
  });
});

describe('a restart keeps the keys devices created', () => {
  it('with their attributes, modifications and key bytes; a fetch after the restart matches', async () => {
    const dir = await dirs.make();
    let mock = await startMock({ stateDir: dir });
    const deviceId = `ABcd.1.${randomUUID()}`;
    const sep = { cdEi: randomBytes(32), cdIdc: randomBytes(32) };
    mock.state.enrollment.addDevice(
      {
        deviceId,
        keyspace: 'ABcd',
        tenant: 'dev',
        user: 'alice',
        createdAt: new Date().toISOString(),
      },
      sep,
    );
    const http = new ApiClient({ auth: { kind: 'none' }, retries: 0 });
    const device = (server: MockServer) =>
      new DeviceClient(
        { deviceId, server: server.info.apiUrl, aesCdIdcKey: sep.cdIdc, aesCdEiKey: sep.cdEi },
        http,
      );
    try {
      const created = await device(mock).create([
        { ref: 'r', count: 2, attributes: { project: ['apollo'] } },
      ]);
      expect(created.keys).toHaveLength(2);
      await device(mock).modify([{ key: created.keys[0]!, attributes: { stage: ['review'] } }]);
      const ids = created.keys.map((k) => k.id);
      const before = await device(mock).fetch(ids);
      await mock.close();

      mock = await restart(dir);
      const after = await device(mock).fetch(ids);
      expect(after.refused).toEqual([]);
      expect(after).toEqual(before);
      expect(after.keys.map((k) => k.key)).toEqual(created.keys.map((k) => k.key));
    } finally {
      await http.close();
      await mock.close();
    }
  });
});

describe('the state directory', () => {
  it('is refused to a second mock while the first runs, with the holder named', async () => {
    const dir = await dirs.make();
    const mock = await startMock({ stateDir: dir });
    try {
      const second = startMock({ stateDir: dir });
      await expect(second).rejects.toThrow(UsageError);
      await expect(second).rejects.toThrow(`in use by another mock (pid ${process.pid})`);
      expect((await call(mock, 'GET', '/_mock/health')).status).toBe(200);
    } finally {
      await mock.close();
    }
    // Given up on close: the next one may take it.
    await (await restart(dir)).close();
  });

  it('is taken over from a mock that died without giving it up', async () => {
    const dir = await dirs.make();
    let mock = await startMock({ stateDir: dir });
    await call(mock, 'POST', '/v2/dev/markings', { admin: true, json: { name: 'kept' } });
    await mock.close();
    const dead = spawn(process.execPath, ['-e', '0']);
    const pid = dead.pid!;
    await new Promise((resolve) => dead.once('exit', resolve));
    await writeFile(join(dir, 'lock'), `${pid}\n`);

    mock = await restart(dir);
    try {
      // This process as the lock names it: pid, start time and boot id.
      expect(await readFile(join(dir, 'lock'), 'utf8')).toMatch(
        new RegExp(`^${process.pid} \\d+ [0-9a-f-]+\n$`),
      );
      const list = await call(mock, 'GET', '/v2/dev/markings?name=kept', { admin: true });
      expect((list.body as { totalResults: number }).totalResults).toBe(1);
    } finally {
      await mock.close();
    }
  });

  it('reset clears it durably: the next start has the defaults and the seed, nothing else', async () => {
    const dir = await dirs.make();
    const seed = { markings: [{ name: 'seeded', values: ['a'] }] };
    let mock = await startMock({ stateDir: dir, seed });
    await call(mock, 'POST', '/v2/dev/markings', { admin: true, json: { name: 'scratch' } });
    await call(mock, 'PUT', '/_mock/users/erin', { admin: true, json: {} });
    expect((await call(mock, 'POST', '/_mock/reset', { admin: true })).status).toBe(200);
    await mock.close();

    mock = await restart(dir);
    try {
      const list = await call(mock, 'GET', '/v2/dev/markings', { admin: true });
      expect((list.body as { Resources: Marking[] }).Resources.map((m) => m.name)).toEqual([
        'seeded',
      ]);
      const erin = await call(mock, 'PUT', '/_mock/users/erin', { admin: true, json: {} });
      expect(erin.status).toBe(201);
    } finally {
      await mock.close();
    }
  });

  it('keeps the dev token unless --dev-token says otherwise; a seed applies only to a new state', async () => {
    const dir = await dirs.make();
    let mock = await startMock({ stateDir: dir, devToken: undefined });
    const token = mock.info.token;
    await mock.close();

    mock = await restart(dir, { seed: { markings: [{ name: 'late' }] } });
    try {
      expect(mock.info.token).toBe(token);
      const list = await call(mock, 'GET', '/v2/dev/markings', { admin: true });
      expect((list.body as { totalResults: number }).totalResults).toBe(0);
    } finally {
      await mock.close();
    }

    mock = await restart(dir, { devToken: 'ksdev.chosen' });
    try {
      expect(mock.info.token).toBe('ksdev.chosen');
      const old = await fetch(`${mock.info.baseUrl}/markings`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(old.status).toBe(401);
    } finally {
      await mock.close();
    }
    // Explicit fault rules replace the stored ones, and are stored in turn.
    mock = await restart(dir, { faults: [{ path: '/nowhere', status: 418 }] });
    await mock.close();
    mock = await restart(dir);
    try {
      expect(mock.info.token).toBe('ksdev.chosen');
      expect((await call(mock, 'GET', '/_mock/faults', { admin: true })).body).toEqual([
        { path: '/nowhere', status: 418 },
      ]);
    } finally {
      await mock.close();
    }
  });

  it('a failed disk write answers 500, the mock goes on, and memory and disk agree after a restart', async () => {
    const dir = await dirs.make();
    let mock = await startMock({ stateDir: dir });
    const probe = await open(join(dir, 'probe'), 'w');
    const prototype = Object.getPrototypeOf(probe) as { datasync(): Promise<void> };
    await probe.close();
    await mock.durable!.sync(); // nothing else is on its way to the disk
    const noSpace = Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    const flush = vi.spyOn(prototype, 'datasync').mockRejectedValueOnce(noSpace);
    try {
      const failed = await call(mock, 'POST', '/v2/dev/markings', {
        admin: true,
        json: { name: 'unsure' },
      });
      expect(failed.status).toBe(500);
      expect((failed.body as { error: { message: string } }).error.message).toMatch(
        /could not write its state/,
      );
      const next = await call(mock, 'POST', '/v2/dev/markings', {
        admin: true,
        json: { name: 'sure' },
      });
      expect(next.status).toBe(201);
    } finally {
      flush.mockRestore();
      await mock.close();
    }
    mock = await restart(dir);
    try {
      const list = await call(mock, 'GET', '/v2/dev/markings', { admin: true });
      expect((list.body as { Resources: Marking[] }).Resources.map((m) => m.name)).toEqual([
        'sure',
        'unsure',
      ]);
    } finally {
      await mock.close();
    }
  });

  it('must be a directory', async () => {
    const file = join(await dirs.make(), 'file');
    await writeFile(file, 'x');
    await expect(restart(file)).rejects.toThrow(`the state directory ${file} is a file`);
  });
});
