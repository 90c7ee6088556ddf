/**
 * The `ksctl` library against a mock (issue 20): MarkingsClient, enroll(), ProfileFile and
 * DeviceClient, their options and their typed errors.
 */
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  AuthError,
  ConflictError,
  DeviceClient,
  enroll,
  InputError,
  MarkingsClient,
  NotFoundError,
  type Profile,
  ProfileFile,
  ServiceError,
  UnreachableError,
  UsageError,
} from '../../src/client/lib/index.js';
import { type Mock, startMock } from '../../src/client/lib/mock.js';
import { tempDirs } from '../helpers/temp.js';
import { ONE_MARKING_LISTING } from '../helpers/listings.js';

const temp = tempDirs();
let mock: Mock;
let markings: MarkingsClient;

beforeAll(async () => {
  mock = await startMock({
    seed: {
      markings: [
        { name: 'classification', values: ['public', 'restricted'], defaultValue: 'public' },
      ],
      tokens: [{ username: 'ci', password: 'ci-password', scopes: ['markings:read'] }],
    },
  });
  markings = new MarkingsClient({ baseUrl: mock.baseUrl, token: mock.token, retries: 0 });
});

afterAll(async () => {
  await markings.close();
  await mock.close();
  await temp.removeAll();
});

describe('MarkingsClient', () => {
  beforeEach(() => mock.reset());

  it('lists markings page by page, with filters, valueLimit and max', async () => {
    await markings.createOrUpdateMany(
      ['a1', 'a2', 'a3', 'a4', 'b1'].map((name) => ({
        name,
        detail: { values: [{ name: 'x' }] },
      })),
    );
    const pages = [];
    for await (const page of markings.list({ name__startswith: 'a', limit: 3 }).pages()) {
      pages.push({
        skip: page.skip,
        names: page.items.map((m) => m.name),
        total: page.totalResults,
      });
    }
    expect(pages).toEqual([
      { skip: 0, names: ['a1', 'a2', 'a3'], total: 4 },
      { skip: 3, names: ['a4'], total: 4 },
    ]);
    const bare = await markings.list({ valueLimit: 0, max: 2 }).toArray();
    expect(bare.map((m) => m.name)).toEqual(['a1', 'a2']);
    expect(bare[0]!.detail.values).toBeUndefined();
    const filtered = await markings
      .list({ filter: ['name__any=a1,b1,c1', 'name__contains__ne=a'], or: false })
      .toArray();
    expect(filtered.map((m) => m.name)).toEqual(['b1']);
  });

  it('gets, creates, updates with ifMatch and deletes, with typed errors', async () => {
    const created = await markings.create({ name: 'region', detail: { values: [{ name: 'eu' }] } });
    expect((await markings.get('region')).id).toBe(created.id);
    expect((await markings.get(created.id)).name).toBe('region');
    await expect(markings.create({ name: 'region' })).rejects.toBeInstanceOf(ConflictError);
    const updated = await markings.update(
      created.id,
      { detail: { description: 'where' } },
      { ifMatch: created._version },
    );
    expect(updated.detail.description).toBe('where');
    await expect(
      markings.update(created.id, { public: true }, { ifMatch: created._version }),
    ).rejects.toMatchObject({ code: 'E_CONFLICT', status: 412, exitCode: 6 });
    await markings.delete(created.id, { ifMatch: updated._version });
    const missing = await markings.get('region').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ code: 'E_NOT_FOUND', exitCode: 5 });
  });

  it('adds, reads, renames, lists and deletes values', async () => {
    const { id } = await markings.get('classification');
    const added = await markings.createValue(id, { name: 'secret', description: 'few' });
    expect((await markings.getValue(id, 'secret')).id).toBe(added.id);
    await markings.updateValue(id, added.id, { name: 'top-secret' });
    const values = await markings.listValues(id, { name__contains: 'secret' }).toArray();
    expect(values.map((v) => v.name)).toEqual(['top-secret']);
    await markings.deleteValue(id, added.id);
    await expect(markings.getValue(id, 'top-secret')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('plans markings given as data or files, and applies the plan', async () => {
    const plan = await markings.plan({
      markings: [
        { name: 'classification', values: ['public', 'restricted', 'secret'] },
        { name: 'region', values: ['eu', { name: 'us', description: 'United States' }] },
      ],
    });
    expect(plan.create.map((m) => m.name)).toEqual(['region']);
    expect(plan.update.map((m) => m.valuesAdded.map((v) => v.name))).toEqual([['secret']]);
    const report = await markings.apply(plan);
    expect(report.failed).toEqual([]);
    expect(report.applied.map((t) => `${t.action} ${t.name}`).sort()).toEqual([
      'create region',
      'update classification',
    ]);
    expect((await markings.get('region')).detail.values?.map((v) => v.description)).toEqual([
      '',
      'United States',
    ]);

    const dir = await temp.make();
    const file = join(dir, 'markings.yaml');
    await writeFile(file, 'markings:\n  - name: region\n');
    const prune = await markings.plan({ files: [file] }, { prune: true });
    expect(prune.delete.map((m) => m.name)).toEqual(['classification']);
  });

  it('exports the markings as a file that plans no change, filtered and in JSON too', async () => {
    await markings.create({
      name: 'region',
      detail: { values: [{ name: 'eu' }, { name: 'us', description: 'United States' }] },
    });
    const text = async (chunks: AsyncIterable<string>) => {
      let all = '';
      for await (const chunk of chunks) all += chunk;
      return all;
    };
    const yaml = await text(markings.export());
    expect(yaml).toContain('- name: region');
    const file = join(await temp.make(), 'export.yaml');
    await writeFile(file, yaml);
    const plan = await markings.plan({ files: [file] }, { prune: true });
    expect([plan.create, plan.update, plan.delete]).toEqual([[], [], []]);

    const json = JSON.parse(await text(markings.export({ format: 'json', filter: 'name=region' })));
    expect(json).toEqual({
      markings: [{ name: 'region', values: ['eu', { name: 'us', description: 'United States' }] }],
    });
    expect(() => markings.export({ filter: 'colour=red' })).toThrow(UsageError);
    expect(() => markings.export({ format: 'xml' as never })).toThrow(UsageError);
  });

  it('says what is wrong with markings to plan, naming where, before anything is sent', async () => {
    const error = await markings
      .plan({ markings: [{ name: 'a', public: 'yes' as never }, { name: 'a' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).details.map((d) => d.path).join(' ')).toMatch(/<markings>:\d+/);
    await expect(markings.plan({} as never)).rejects.toBeInstanceOf(UsageError);
  });

  it('authenticates with Basic credentials, and refused credentials are AuthError', async () => {
    const basic = new MarkingsClient({
      baseUrl: mock.baseUrl,
      basic: { username: 'ci', password: 'ci-password' },
    });
    expect((await basic.get('classification')).name).toBe('classification');
    await expect(basic.create({ name: 'x' })).rejects.toMatchObject({
      code: 'E_AUTH',
      status: 403,
    });
    await basic.close();
    const wrong = new MarkingsClient({ baseUrl: mock.baseUrl, token: 'nope', retries: 0 });
    await expect(wrong.list().toArray()).rejects.toBeInstanceOf(AuthError);
    await wrong.close();
  });

  it('refuses bad options, and a service that does not answer is UnreachableError', async () => {
    expect(() => new MarkingsClient({ baseUrl: 'ftp://x' })).toThrow(UsageError);
    expect(
      () =>
        new MarkingsClient({
          baseUrl: mock.baseUrl,
          token: 't',
          basic: { username: 'u', password: 'p' },
        }),
    ).toThrow(/not both/);
    expect(() => new MarkingsClient({ baseUrl: mock.baseUrl, timeout: 0 })).toThrow(UsageError);
    expect(() => new MarkingsClient({ baseUrl: mock.baseUrl, retries: 1.5 })).toThrow(UsageError);
    const gone = await startMock();
    const url = gone.baseUrl;
    await gone.close();
    const client = new MarkingsClient({ baseUrl: url, token: 't', retries: 0, timeout: 2_000 });
    const error = await client.get('x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnreachableError);
    expect(error).toMatchObject({ code: 'E_SERVICE', reason: 'connection refused' });
    await client.close();
  });
});

describe('MarkingsClient and compressed answers (issue 25)', () => {
  it('decodes a gzip answer, and refuses one in a coding it does not read, naming it', async () => {
    const server = createServer((req, res) => {
      const encoding = req.url?.startsWith('/zstd/') ? 'zstd' : 'gzip';
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': encoding });
      res.end(encoding === 'gzip' ? gzipSync(ONE_MARKING_LISTING) : ONE_MARKING_LISTING);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const gzip = new MarkingsClient({ baseUrl: `${origin}/gzip/v2/t`, token: 't', retries: 0 });
    const zstd = new MarkingsClient({ baseUrl: `${origin}/zstd/v2/t`, token: 't', retries: 0 });
    try {
      expect((await gzip.list().toArray()).map((m) => m.name)).toEqual(['squeezed']);
      const error = await zstd
        .list()
        .toArray()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServiceError);
      expect((error as ServiceError).message).toContain('content coding "zstd"');
    } finally {
      await Promise.all([gzip.close(), zstd.close()]);
      server.close();
    }
  });
});

describe('enroll, ProfileFile and DeviceClient', () => {
  let profile: Profile;
  let dir: string;

  beforeAll(async () => {
    mock.reset();
    dir = await temp.make();
  });

  it('enrolls into a password file, which converts to the other two formats', async () => {
    const file = ProfileFile.password(join(dir, 'profiles.pw'), 'a long password');
    profile = await enroll({
      keyspace: mock.keyspace,
      apiUrl: mock.apiUrl,
      enrollmentUrl: mock.enrollmentUrl,
      tokens: mock.mintTokens('alice'),
      name: 'library',
      profileFile: file,
    });
    expect(profile.deviceId).toMatch(/^ABcd\.1\./);
    expect(profile.server).toBe(mock.apiUrl);
    expect(mock.devices().map((d) => [d.deviceId, d.user])).toEqual([[profile.deviceId, 'alice']]);
    expect(await file.list()).toMatchObject([{ name: 'library', active: true }]);
    expect((await file.active()).aesCdEiKey.equals(profile.aesCdEiKey)).toBe(true);
    await expect(ProfileFile.password(file.path, 'another password').read()).rejects.toBeInstanceOf(
      AuthError,
    );

    const plain = ProfileFile.plaintext(join(dir, 'profiles.json'));
    const gcm = ProfileFile.aesgcm(join(dir, 'profiles.gcm'), 'ab'.repeat(32), { adata: 'app' });
    await file.convert(plain);
    await plain.convert(gcm);
    expect((await gcm.get('library')).deviceId).toBe(profile.deviceId);
    await expect(plain.convert(gcm)).rejects.toBeInstanceOf(ConflictError);
    expect(JSON.stringify(file)).not.toContain('a long password');
  });

  it('creates keys with a marking, fetches them back and modifies them', async () => {
    const device = new DeviceClient(profile);
    const created = await device.createKeys([
      { ref: 'report', attributes: { classification: ['restricted'] } },
      { ref: 'notes', count: 2 },
    ]);
    expect(created.keys.map((k) => k.ref)).toEqual(['report', 'notes', 'notes']);
    const fetched = await device.fetchKeys(created.keys.map((k) => k.id));
    expect(fetched.keys.map((k) => k.attributes.classification)).toEqual([
      ['restricted'],
      ['public'],
      ['public'],
    ]);
    const [first] = fetched.keys;
    const modified = await device.modifyKeys({ key: first!, attributes: { owner: ['ci'] } });
    expect(modified.modified.map((m) => m.id)).toEqual([first!.id]);
    const [after] = (await device.fetchKeys(first!.id)).keys;
    expect(after!.mutableAttributes).toEqual({ owner: ['ci'] });
    // The key as fetched before the change: its signatures are stale now.
    const stale = await device.modifyKeys({ key: first!, attributes: { owner: ['other'] } });
    expect(stale.modified).toEqual([]);
    expect(stale.refused[0]!.error).toBeInstanceOf(ConflictError);
    const forced = await device.modifyKeys({
      key: first!,
      attributes: { owner: ['other'] },
      force: true,
    });
    expect(forced.refused).toEqual([]);
    await expect(
      device.createKeys({ ref: 'x', attributes: { classification: ['no'] } }),
    ).rejects.toMatchObject({
      code: 'E_INPUT',
      message: expect.stringContaining('marking "classification" has no value "no"'),
    });
    const unknown = await device.fetchKeys('nope');
    expect(unknown.refused[0]!.error).toBeInstanceOf(NotFoundError);
    expect(mock.keys()).toHaveLength(3);
    await device.close();
  });

  it('speaks the v2.3 dialect when asked: the same keys, and no modify', async () => {
    const v24 = new DeviceClient(profile);
    const v23 = new DeviceClient(profile, { apiVersion: '2.3' });
    expect([v24.apiVersion, v23.apiVersion]).toEqual(['2.4', '2.3']);
    const [created] = (
      await v24.createKeys({ ref: 'both', mutableAttributes: { stage: ['draft'] } })
    ).keys;
    const [fetched] = (await v23.fetchKeys(created!.id)).keys;
    expect(fetched!.key.equals(created!.key)).toBe(true);
    expect(fetched!.attributes.classification).toEqual(['public']);
    await expect(v23.modifyKeys({ key: fetched!, attributes: {} })).rejects.toBeInstanceOf(
      UsageError,
    );
    await Promise.all([v24.close(), v23.close()]);
  });

  it('enrolls in memory through the portal, and a spent token pair is a typed error', async () => {
    const viaPortal = await enroll({
      keyspace: mock.keyspace,
      enrollmentUrl: mock.enrollmentUrl,
      apiUrl: mock.apiUrl,
      portal: { username: 'alice', password: 'alice-password' },
      name: 'portal',
    });
    expect(viaPortal.name).toBe('portal');
    const viaEmail = await enroll({
      keyspace: mock.keyspace,
      enrollmentUrl: mock.enrollmentUrl,
      apiUrl: mock.apiUrl,
      portal: {
        email: 'alice@example.com',
        registrationCode: () => mock.outbox().at(-1)!.code,
      },
      name: 'email',
    });
    expect(mock.devices().map((d) => d.deviceId)).toContain(viaEmail.deviceId);
    const tokens = mock.mintTokens('alice');
    const options = { keyspace: mock.keyspace, apiUrl: mock.apiUrl, tokens, name: 'again' };
    await enroll({ ...options, enrollmentUrl: mock.enrollmentUrl });
    await expect(enroll({ ...options, enrollmentUrl: mock.enrollmentUrl })).rejects.toBeInstanceOf(
      ConflictError,
    );
  });

  it('refuses what it cannot use before anything is sent', async () => {
    const base = { keyspace: mock.keyspace, apiUrl: mock.apiUrl };
    await expect(enroll(base)).rejects.toBeInstanceOf(UsageError);
    await expect(enroll({ ...base, keyspace: 'toolong' })).rejects.toMatchObject({
      code: 'E_INPUT',
    });
    expect(() => markings.list({ filter: 'nme=x' })).toThrow(UsageError);
    await expect(
      enroll({ ...base, tokens: mock.mintTokens('alice'), name: 'bad\nname' }),
    ).rejects.toBeInstanceOf(UsageError);
    expect(() => new DeviceClient({ deviceId: 'x' } as never)).toThrow(UsageError);
    expect(() => new DeviceClient(profile, { apiVersion: '9.9' as never })).toThrow(
      /not one ksctl speaks/,
    );
    expect(() => ProfileFile.aesgcm('x', 'abc')).toThrow(InputError);
  });
});
