/**
 * `startMock({ tls })` of `ksctl/mock` (issue 37): the library starts an HTTPS mock through the
 * use case `mock serve --tls` goes through, and hands back the CA a client trusts to reach it.
 */
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { access, readFile, stat, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DeviceClient, enroll, MarkingsClient } from '../../src/client/lib/index.js';
import { type Mock, startMock } from '../../src/client/lib/mock.js';
import { libraryMocks } from '../helpers/library-mocks.js';
import { tempDirs } from '../helpers/temp.js';

const temp = tempDirs();
const mocks = libraryMocks();
const mock = mocks.start;

/** GET `path` of the mock over HTTPS, trusting `ca` only (or Node's default CAs): the status. */
function get(m: Mock, path: string, ca?: string, servername?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, m.url);
    const req = request(
      url,
      {
        headers: { authorization: `Bearer ${m.token}` },
        timeout: 30_000,
        ...(ca === undefined ? {} : { ca }),
        ...(servername === undefined ? {} : { servername }),
      },
      (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.once('timeout', () => req.destroy(new Error('timed out')));
    req.once('error', reject);
    req.end();
  });
}

afterAll(async () => {
  await mocks.closeAll();
  await temp.removeAll();
});

describe('startMock({ tls })', () => {
  it('speaks HTTPS with a throwaway CA that a client trusting `ca` reaches, and one without it cannot', async () => {
    const m = await mock({ tls: true });
    expect(m.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(m.baseUrl.startsWith('https://')).toBe(true);
    expect(m.enrollmentUrl.startsWith('https://')).toBe(true);
    expect(m.ca).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(await readFile(m.caFile!, 'utf8')).toBe(m.ca);
    expect(m.trust?.node).toContain('NODE_EXTRA_CA_CERTS=');
    expect(new X509Certificate(m.ca!).ca).toBe(true);

    expect(await get(m, '/_mock/health', m.ca)).toBe(200);
    expect(await get(m, `/v2/${m.tenantId}/markings`, m.ca)).toBe(200);
    await expect(get(m, '/_mock/health')).rejects.toMatchObject({
      code: expect.stringMatching(
        /UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED|UNABLE_TO_GET_ISSUER/,
      ),
    });

    // The throwaway CA's folder goes with the mock.
    const caFile = m.caFile!;
    await m.close();
    await expect(access(caFile)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('each throwaway CA is its own: one mock’s CA does not open another’s', async () => {
    const [a, b] = await Promise.all([mock({ tls: true }), mock({ tls: {} })]);
    expect(a.ca).not.toBe(b.ca);
    await expect(get(b, '/_mock/health', a.ca)).rejects.toMatchObject({
      code: expect.stringMatching(/CERT|VERIFY|SIGNATURE|ISSUER/),
    });
  });

  it('certifies tls.names beside the loopback names', async () => {
    const m = await mock({ tls: { names: ['desk.example', '192.0.2.7'] } });
    const names = new X509Certificate(await readFile(join(m.caFile!, '..', 'server.pem')))
      .subjectAltName;
    expect(names).toContain('DNS:desk.example');
    expect(names).toContain('IP Address:192.0.2.7');
    expect(names).toContain('DNS:localhost');
    // A client that calls the mock by one of the names is answered.
    expect(await get(m, '/_mock/health', m.ca, 'desk.example')).toBe(200);
    await expect(get(m, '/_mock/health', m.ca, 'other.example')).rejects.toMatchObject({
      code: 'ERR_TLS_CERT_ALTNAME_INVALID',
    });
  });

  it('makes the CA in tls.configDir once and reuses it, its key private, as the CLI does', async () => {
    const dir = await temp.make();
    const first = await mock({ tls: { configDir: dir } });
    expect(first.caFile).toBe(join(dir, 'mock-ca', 'ca.pem'));
    expect((await stat(join(dir, 'mock-ca', 'ca-key.pem'))).mode & 0o777).toBe(0o600);
    await first.close();
    // A kept CA outlives its mock.
    await access(join(dir, 'mock-ca', 'ca.pem'));
    const second = await mock({ tls: { configDir: dir } });
    expect(second.ca).toBe(first.ca);
    expect(await get(second, '/_mock/health', first.ca)).toBe(200);
  });

  it('speaks HTTPS with your own certificate and key, PEM text or files', async () => {
    const dir = await temp.make();
    const issuer = await mock({ tls: { configDir: dir } });
    const certFile = join(dir, 'mock-ca', 'server.pem');
    const keyPem = await readFile(join(dir, 'mock-ca', 'server-key.pem'), 'utf8');
    const own = await mock({ tls: { cert: certFile, key: keyPem } });
    expect(own.url).toMatch(/^https:/);
    expect(own.ca).toBeUndefined();
    expect(own.caFile).toBeUndefined();
    expect(await get(own, '/_mock/health', issuer.ca)).toBe(200);
  });

  it('refuses bad tls options with typed errors before it listens', async () => {
    const usage = { code: 'E_USAGE' };
    await expect(startMock({ tls: 'yes' as never })).rejects.toMatchObject(usage);
    await expect(startMock({ tls: { name: ['x'] } as never })).rejects.toMatchObject(usage);
    await expect(startMock({ tls: { names: 'desk' } as never })).rejects.toMatchObject(usage);
    await expect(startMock({ tls: { names: ['bad name!'] } })).rejects.toMatchObject({
      code: 'E_USAGE',
      message: expect.stringContaining('tls.names[0] "bad name!"'),
    });
    await expect(startMock({ tls: { cert: 'only.pem' } as never })).rejects.toMatchObject(usage);
    await expect(
      startMock({ tls: { cert: 'c.pem', key: 'k.pem', names: ['x'] } as never }),
    ).rejects.toMatchObject(usage);
    await expect(startMock({ tls: { configDir: '' } })).rejects.toMatchObject(usage);

    const dir = await temp.make();
    const issuer = await mock({ tls: { configDir: dir } });
    const cert = await readFile(join(dir, 'mock-ca', 'server.pem'), 'utf8');
    const strangerKey = generateKeyPairSync('rsa', { modulusLength: 1024 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    await expect(startMock({ tls: { cert, key: strangerKey } })).rejects.toMatchObject({
      code: 'E_INPUT',
      message: 'tls.key is not the key of the certificate in tls.cert',
    });
    await expect(
      startMock({ tls: { cert: '-----BEGIN CERTIFICATE-----\nnope\n', key: strangerKey } }),
    ).rejects.toMatchObject({ code: 'E_INPUT', message: 'tls.cert holds no PEM certificate' });
    await expect(
      startMock({ tls: { cert: join(dir, 'missing.pem'), key: strangerKey } }),
    ).rejects.toMatchObject({ code: 'E_INPUT' });
    await expect(startMock({ tls: { cert: issuer.ca!, key: 'not a key' } })).rejects.toMatchObject({
      code: 'E_INPUT',
    });
    // A configDir that is a file: the error names it, and nothing listens.
    const file = join(dir, 'a-file');
    await writeFile(file, 'not a folder');
    await expect(startMock({ tls: { configDir: file } })).rejects.toMatchObject({
      code: 'E_INPUT',
      message: expect.stringContaining(file),
    });
  });
});

describe("the library's clients and an HTTPS mock", () => {
  it('reach it with the mock’s `ca`: markings, an enrollment, device keys; refuse it without', async () => {
    // This one enrolls: the key server key the mock makes itself (RSA-3072).
    const m = await startMock({ tls: true });
    mocks.track(m);
    const connection = { token: m.token, ca: m.ca!, retries: 0 };

    const markings = new MarkingsClient({ baseUrl: m.baseUrl, ...connection });
    await markings.create({ name: 'region', detail: { values: [{ name: 'eu' }] } });
    expect((await markings.list().toArray()).map((marking) => marking.name)).toEqual(['region']);

    const profile = await enroll({
      keyspace: m.keyspace,
      apiUrl: m.apiUrl,
      enrollmentUrl: m.enrollmentUrl,
      tokens: m.mintTokens('alice'),
      name: 'tls',
      ca: m.ca!,
    });
    expect(profile.server).toBe(m.apiUrl);
    const device = new DeviceClient(profile, { ca: m.ca!, retries: 0 });
    const created = await device.createKeys({ ref: 'report' });
    expect((await device.fetchKeys(created.keys.map((k) => k.id))).keys).toHaveLength(1);

    // Without the CA (Node's own), or with another mock's: refused, naming the certificate.
    const other = await mock({ tls: true });
    for (const ca of [undefined, other.ca!]) {
      const stranger = new MarkingsClient({
        baseUrl: m.baseUrl,
        token: m.token,
        retries: 0,
        ...(ca === undefined ? {} : { ca }),
      });
      await expect(stranger.list().toArray()).rejects.toMatchObject({
        message: expect.stringMatching(/certificate/i),
      });
      await expect(
        new DeviceClient(profile, { retries: 0, ...(ca === undefined ? {} : { ca }) }).fetchKeys([
          created.keys[0]!.id,
        ]),
      ).rejects.toMatchObject({ message: expect.stringMatching(/certificate/i) });
    }
    // A `ca` that is not PEM is a usage error before any request.
    expect(() => new MarkingsClient({ baseUrl: m.baseUrl, token: m.token, ca: 'nope' })).toThrow(
      expect.objectContaining({
        code: 'E_USAGE',
        message: expect.stringContaining('ca must be PEM'),
      }),
    );
    expect(m.requests().filter((r) => r.status === 0)).toEqual([]);
  });
});
