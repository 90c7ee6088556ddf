/**
 * Issue 37: `ksctl mock serve --tls` for apps that insist on HTTPS. A real `mock serve --tls`
 * with its own configuration folder, reached as each kind of client would reach it:
 * - ksctl with nothing set (the "mock" context records the CA);
 * - curl --cacert and Node's own https with NODE_EXTRA_CA_CERTS (test/helpers/tls-transports.ts)
 *   carrying the device protocol of the independent SDK-like client (test/helpers/sdk-device.ts).
 *   The vendor's JS SDK 2.0 is not on the npm registry (the package named ionic-sdk there is the
 *   Ionic web framework), so it cannot be installed here; the relay runs Node's https exactly as
 *   an SDK in Node would, trusting the CA only through the variable the banner prints.
 * - a certificate from another CA refused (exit 7), plain HTTP on the port told to use https,
 *   a restart that keeps the CA, and `--host 0.0.0.0` said loudly.
 * openssl checks the certificates as an independent implementation.
 */
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prng } from '../helpers/random.js';
import { register, SdkDevice, type Transport } from '../helpers/sdk-device.js';
import {
  curlTransport,
  nodeExtraCaTransport,
  TransportRefused,
} from '../helpers/tls-transports.js';
import { assertBuilt, cleanEnv, ksctl, type ServedMock, serveMock } from '../helpers/spawn.js';
import { tempDirs } from '../helpers/temp.js';

const temp = tempDirs();
const running: ServedMock[] = [];
let configDir: string;
let home: string;
let served: ServedMock;
let rsa: { publicKey: KeyObject; privateKey: KeyObject };
let started = 0;

/** ksctl's environment: no KSCTL_* but the folders, and no NODE_EXTRA_CA_CERTS either. */
const env = (extra: Record<string, string> = {}) => {
  const { NODE_EXTRA_CA_CERTS: _extra, ...rest } = cleanEnv({
    KSCTL_CONFIG_DIR: configDir,
    KSCTL_HOME: home,
    ...extra,
  });
  return rest;
};
const run = (args: string[], extra: Record<string, string> = {}, input?: string) =>
  ksctl(args, { env: env(extra), input, timeoutMs: 60_000 });
const caDir = () => join(configDir, 'mock-ca');

async function serve(extra: string[], dir = configDir): Promise<ServedMock> {
  const mock = await serveMock(extra, {
    env: cleanEnv({ KSCTL_CONFIG_DIR: dir, KSCTL_HOME: home }),
    readyFile: join(dir, 'run', `ready-${++started}.json`),
    readyTimeoutMs: 60_000,
  });
  running.push(mock);
  return mock;
}

/** Standard error once it holds `text` (the banner may still be on its way when the file is). */
async function stderrWith(mock: ServedMock, text: string): Promise<string> {
  for (let i = 0; i < 400 && !mock.output().stderr.includes(text); i++) await sleep(25);
  return mock.output().stderr;
}

/** What the banner said, its words whatever the lines they were broken over. */
async function saidWith(mock: ServedMock, text: string): Promise<string> {
  return (await stderrWith(mock, text)).replace(/\s+/g, ' ');
}

function openssl(args: string[]): string {
  return execFileSync('openssl', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A CA of its own and a certificate it issued for 127.0.0.1 and localhost, made by openssl. */
function otherCa(dir: string): { ca: string; cert: string; key: string } {
  const ca = join(dir, 'other-ca.pem');
  const caKey = join(dir, 'other-ca-key.pem');
  const key = join(dir, 'other-key.pem');
  const csr = join(dir, 'other.csr');
  const cert = join(dir, 'other.pem');
  const ext = join(dir, 'other.ext');
  openssl(
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', caKey, '-out', ca].concat([
      '-days',
      '2',
      '-subj',
      '/CN=another CA',
    ]),
  );
  openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', csr, '-subj', '/CN=x']);
  writeFileSync(ext, 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  openssl(
    ['x509', '-req', '-in', csr, '-CA', ca, '-CAkey', caKey, '-CAcreateserial'].concat([
      '-out',
      cert,
      '-days',
      '2',
      '-extfile',
      ext,
    ]),
  );
  return { ca, cert, key };
}

/** Enrolls through `send` as the SDKs do, then creates two keys with the new device. */
async function enrollAndCreate(send: Transport, quirks: { js?: boolean } = {}) {
  const { info } = served;
  const minted = await send(`${info.url}/_mock/tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${info.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ user: 'alice' }),
  });
  expect(minted.status).toBe(200);
  const tokens = (await minted.json()) as { stoken: string; uidauth: string };
  const sep = await register({
    apiUrl: info.apiUrl,
    enrollmentUrl: info.enrollmentUrl,
    keyspace: info.keyspace,
    ...tokens,
    devicePublic: rsa.publicKey,
    devicePrivate: rsa.privateKey,
    dialect: '2.4',
    lowercaseField: quirks.js,
    transport: send,
  });
  const device = new SdkDevice(sep, info.apiUrl, quirks.js ? { hfpFirst: true } : {}, send);
  const keys = await device.create('2.4', 'tls', 2, { project: ['interop'] });
  expect(keys).toHaveLength(2);
  const fetched = await device.fetch('2.4', [keys[0]!.id]);
  expect(fetched.keys[0]!.key.equals(keys[0]!.key)).toBe(true);
  return sep.deviceId;
}

beforeAll(async () => {
  assertBuilt();
  configDir = await temp.make();
  home = await temp.make();
  rsa = generateKeyPairSync('rsa', { modulusLength: 3072 });
  served = await serve(['--tls', '--json']);
}, 120_000);

afterAll(async () => {
  await Promise.all(running.map((mock) => mock.stop()));
  await temp.removeAll();
});

describe('mock serve --tls (issue 37)', () => {
  it('serves HTTPS with a local CA it made, and every URL, the ready file and the context say so', () => {
    const { info } = served;
    for (const url of [info.url, info.baseUrl, info.apiUrl, info.enrollmentUrl, info.knsUrl]) {
      expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+/);
    }
    expect(info.consoleUrl).toMatch(/^https:\/\//);
    expect(info.caFile).toBe(join(caDir(), 'ca.pem'));
    expect(info.trust?.node).toBe(`export NODE_EXTRA_CA_CERTS=${info.caFile}`);
    expect(info.trust?.java).toContain(`keytool -importcert`);
    expect(info.trust?.java).toContain(info.caFile);
    expect(info.trust?.android).toContain('Install a certificate');
    expect(info.trust?.ios).toContain('Certificate Trust Settings');
    // The keys never leave the folder and nobody else reads them.
    expect(statSync(join(caDir(), 'ca-key.pem')).mode & 0o777).toBe(0o600);
    expect(statSync(join(caDir(), 'server-key.pem')).mode & 0o777).toBe(0o600);
    expect(statSync(caDir()).mode & 0o777).toBe(0o700);
    // openssl agrees: the server certificate chains to the CA and names the loopback names.
    const server = join(caDir(), 'server.pem');
    expect(openssl(['verify', '-CAfile', info.caFile!, server])).toContain(': OK');
    const names = openssl(['x509', '-in', server, '-noout', '-ext', 'subjectAltName']);
    expect(names).toContain('DNS:localhost');
    expect(names).toContain('IP Address:127.0.0.1');
    expect(names).toMatch(/IP Address:0:0:0:0:0:0:0:1|IP Address:::1/);
    const config = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')) as {
      contexts: Record<string, { caFile?: string; baseUrl?: string }>;
    };
    expect(config.contexts.mock).toMatchObject({ baseUrl: info.baseUrl, caFile: info.caFile });
  });

  it('ksctl markings, status, api, enroll and keys work with nothing set', async () => {
    const created = await run(['markings', 'create', 'classification', '--value', 'secret']);
    expect(created.stderr).toBe(created.code === 0 ? created.stderr : '');
    expect(created.code).toBe(0);
    const listed = await run(['markings', 'list', '-o', 'json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ name: 'classification' }),
    ]);
    const status = await run(['status']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(served.info.baseUrl);
    expect(status.stdout).toContain(`Trusted CAs\t${served.info.caFile} (from context "mock")`);
    const api = await run(['api', 'GET', '/markings']);
    expect(api.code, api.stderr).toBe(0);
    const enrolled = await run(['enroll', '--mock-user', 'alice', '--name', 'tls', '--verify']);
    expect(enrolled.code, enrolled.stderr).toBe(0);
    expect(enrolled.stderr).toContain('verified: created key');
    const keys = await run(['keys', 'create', '--attr', 'classification=secret', '-o', 'json']);
    expect(keys.code, keys.stderr).toBe(0);
    expect(JSON.parse(keys.stdout)).toEqual([expect.objectContaining({ id: expect.any(String) })]);
  });

  it('curl --cacert with the printed CA file enrolls a device and creates keys', async () => {
    const device = await enrollAndCreate(curlTransport(served.info.caFile!));
    expect(device).toMatch(/^ABcd\./);
    // With another CA's file, curl refuses the certificate (its exit 60).
    const other = otherCa(await temp.make());
    const refused = await curlTransport(other.ca)(`${served.info.url}/_mock/health`).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(TransportRefused);
    expect((refused as TransportRefused).code).toBe('60');
  });

  it("Node's https with NODE_EXTRA_CA_CERTS (as the JS SDK runs in Node) enrolls and creates keys", async () => {
    const device = await enrollAndCreate(nodeExtraCaTransport(served.info.caFile!), { js: true });
    expect(device).toMatch(/^ABcd\./);
    const other = otherCa(await temp.make());
    const refused = await nodeExtraCaTransport(other.ca)(`${served.info.url}/_mock/health`).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(TransportRefused);
    expect((refused as TransportRefused).code).toMatch(/CERT|SIGNATURE|ISSUER/);
  });

  it('a certificate from another CA is refused with exit 7; --ca-file trusts a CA for any context', async () => {
    const dir = await temp.make();
    const other = otherCa(dir);
    const foreign = await serve(
      ['--tls-cert', other.cert, '--tls-key', other.key, '--json', '--no-context'],
      dir,
    );
    expect(foreign.info.url).toMatch(/^https:/);
    expect(foreign.info.caFile).toBeUndefined();
    const token = ['--token-file', '-'];
    // The "mock" context is current: its CA is trusted, and the other mock's is not.
    const refused = await run(
      ['--base-url', foreign.info.baseUrl, ...token, 'markings', 'list'],
      {},
      foreign.info.token,
    );
    expect(refused.code).toBe(7);
    expect(refused.stderr).toContain('its TLS certificate is not signed by a CA ksctl trusts');
    expect(refused.stderr).toContain('--ca-file');
    expect(refused.stderr).not.toMatch(/retrying|\n\s+at /);
    const trusted = await run(
      ['--base-url', foreign.info.baseUrl, '--ca-file', other.ca, ...token, 'markings', 'list'],
      {},
      foreign.info.token,
    );
    expect(trusted.code, trusted.stderr).toBe(0);
    // Another context does not trust the mock's CA.
    const added = await run(
      ['context', 'add', 'plain', '--base-url', served.info.baseUrl, ...token],
      {},
      served.info.token,
    );
    expect(added.code, added.stderr).toBe(0);
    const plain = await run(['--context', 'plain', 'markings', 'list']);
    expect(plain.code).toBe(7);
    expect(plain.stderr).toContain('not signed by a CA ksctl trusts');
    // A context of its own may trust a CA: stored absolute, shown, used.
    const set = await ksctl(['context', 'set', 'plain', 'ca-file', 'mock-ca/ca.pem'], {
      env: env(),
      cwd: configDir,
    });
    expect(set.code, set.stderr).toBe(0);
    const shown = await run(['context', 'show', 'plain', '-o', 'json']);
    expect(JSON.parse(shown.stdout)).toMatchObject({ caFile: served.info.caFile });
    expect((await run(['--context', 'plain', 'markings', 'list'])).code).toBe(0);
    expect((await run(['context', 'unset', 'plain', 'ca-file'])).code).toBe(0);
    // A CA file that is not one is refused before any request.
    const bad = await run([
      '--context',
      'plain',
      '--ca-file',
      join(configDir, 'config.json'),
      'markings',
      'list',
    ]);
    expect(bad.code).toBe(3);
    expect(bad.stderr).toContain('holds no PEM certificate');
    const missing = await run(['--context', 'plain', '--ca-file', join(dir, 'none.pem'), 'status']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read the CA file');
  });

  it("a journaled request's curl line says https and the CA file, and runs as it is", async () => {
    const journal = await run(['mock', 'requests', '-o', 'json']);
    expect(journal.code, journal.stderr).toBe(0);
    const listing = (JSON.parse(journal.stdout) as { id: number; method: string; path: string }[])
      .filter((r) => r.method === 'GET' && r.path.startsWith('/v2/dev/markings'))
      .at(-1)!;
    const shown = await run(['mock', 'requests', 'show', String(listing.id), '-o', 'json']);
    expect(shown.code, shown.stderr).toBe(0);
    const { curl } = JSON.parse(shown.stdout) as { curl: string };
    expect(curl).toContain(`--cacert ${served.info.caFile}`);
    expect(curl).toContain(`${served.info.url}/v2/dev/markings`);
    const replayed = execFileSync('bash', ['-c', `${curl} -sS`], {
      encoding: 'utf8',
      env: { ...process.env, KSCTL_TOKEN: served.info.token },
    });
    expect(JSON.parse(replayed)).toMatchObject({ totalResults: expect.any(Number) });
  });

  it('plain HTTP to the HTTPS port is answered in plain HTTP: use https://', async () => {
    const plainUrl = served.info.url.replace('https:', 'http:');
    const answer = await fetch(`${plainUrl}/_mock/health`);
    expect(answer.status).toBe(400);
    expect(await answer.json()).toEqual({
      error: expect.objectContaining({ message: expect.stringContaining('use https://') }),
    });
    const listed = await run(['--base-url', `${plainUrl}/v2/dev`, 'markings', 'list']);
    expect(listed.code).toBe(3);
    expect(listed.stderr).toContain('this port speaks HTTPS');
  });

  it('garbage on the HTTPS port (a broken handshake, random bytes) closes that connection, and the mock serves on', async () => {
    const { port } = new URL(served.info.url);
    const random = prng(37);
    const closed = (bytes: Buffer) =>
      new Promise<void>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => socket.end(bytes));
        socket.on('error', () => undefined);
        socket.on('data', () => undefined);
        socket.once('close', () => resolve());
        setTimeout(() => reject(new Error('not closed')), 30_000).unref();
      });
    const inputs = [
      Buffer.from([0x16, 0x03, 0x01, 0x00, 0x05, 1, 2, 3, 4, 5]),
      Buffer.from([0x16]),
      ...Array.from({ length: 20 }, () =>
        Buffer.from(Array.from({ length: 1 + random.int(300) }, () => random.int(256))),
      ),
    ];
    await Promise.all(inputs.map(closed));
    const health = await curlTransport(served.info.caFile!)(`${served.info.url}/_mock/health`);
    expect(health.status).toBe(200);
  });

  it('mock ca prints the CA file and, with --pem, the certificate; none yet is exit 5', async () => {
    const path = await run(['mock', 'ca']);
    expect(path).toMatchObject({ code: 0, stdout: `${served.info.caFile}\n` });
    const pem = await run(['mock', 'ca', '--pem']);
    expect(pem.stdout).toBe(readFileSync(served.info.caFile!, 'utf8'));
    const fresh = await ksctl(['mock', 'ca'], {
      env: cleanEnv({ KSCTL_CONFIG_DIR: await temp.make() }),
    });
    expect(fresh.code).toBe(5);
    expect(fresh.stderr).toContain('ksctl mock serve --tls');
  });

  it('a restart keeps the CA, and makes a new certificate only when the names change', async () => {
    const ca = readFileSync(join(caDir(), 'ca.pem'), 'utf8');
    const first = readFileSync(join(caDir(), 'server.pem'), 'utf8');
    const named = await serve([
      '--tls',
      '--tls-name',
      '10.0.2.2',
      '--tls-name',
      'Desk.Example',
      '--no-context',
    ]);
    expect(named.info.caFile).toBe(join(caDir(), 'ca.pem'));
    expect(readFileSync(join(caDir(), 'ca.pem'), 'utf8')).toBe(ca);
    const second = readFileSync(join(caDir(), 'server.pem'), 'utf8');
    expect(second).not.toBe(first);
    const names = openssl([
      'x509',
      '-in',
      join(caDir(), 'server.pem'),
      '-noout',
      '-ext',
      'subjectAltName',
    ]);
    expect(names).toContain('IP Address:10.0.2.2');
    expect(names).toContain('DNS:desk.example');
    expect(names).toContain('DNS:localhost');
    const again = await serve([
      '--tls',
      '--tls-name',
      'desk.example',
      '--tls-name',
      '10.0.2.2',
      '--no-context',
    ]);
    expect(again.info.url).toMatch(/^https:/);
    expect(readFileSync(join(caDir(), 'server.pem'), 'utf8')).toBe(second);
    await named.stop();
    await again.stop();
  });

  it('a --tls-name that is no name, or TLS flags that do not go together, are usage errors', async () => {
    const bad = [
      'under_score.example',
      'a..b',
      '-lead.example',
      'x'.repeat(64) + '.com',
      'ha ha',
      '1.2.3.4:80',
      '*',
      'a*.example',
      '',
    ];
    for (const name of bad) {
      const result = await run([
        'mock',
        'serve',
        '--port',
        '0',
        '--no-context',
        '--tls',
        '--tls-name',
        name,
      ]);
      expect(result.code, name).toBe(2);
      expect(result.stderr, name).toContain('is not an IP address or a DNS name');
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    const lone = await run([
      'mock',
      'serve',
      '--port',
      '0',
      '--no-context',
      '--tls-name',
      'desk.local',
    ]);
    expect(lone.code).toBe(2);
    expect(lone.stderr).toContain('--tls-name needs --tls');
    const half = await run([
      'mock',
      'serve',
      '--port',
      '0',
      '--no-context',
      '--tls-cert',
      served.info.caFile!,
    ]);
    expect(half.code).toBe(2);
    expect(half.stderr).toContain('--tls-cert and --tls-key go together');
    const mismatched = await run([
      'mock',
      'serve',
      '--port',
      '0',
      '--no-context',
      '--tls-cert',
      join(caDir(), 'server.pem'),
      '--tls-key',
      join(caDir(), 'ca-key.pem'),
    ]);
    expect(mismatched.code).toBe(3);
    expect(mismatched.stderr).toContain('is not the key of the certificate');
  });
});

describe('a mock beyond loopback (issue 37)', () => {
  it('--host 0.0.0.0 starts the banner with a warning and gives the users random passwords', async () => {
    const dir = await temp.make();
    const wide = await serve(['--host', '0.0.0.0', '--no-context'], dir);
    const banner = await saidWith(wide, 'For other shells');
    expect(banner.trimStart()).toMatch(
      /^WARNING: the mock listens on 0\.0\.0\.0, beyond this machine/,
    );
    expect(banner).toContain('every device that can reach port');
    expect(banner).toContain('Add --tls');
    const alice = wide.info.users.find((u) => u.name === 'alice')!;
    expect(alice.password).toMatch(/^[\w-]{16}$/);
    expect(alice.password).not.toBe('alice-password');
    expect(banner).toContain(`password ${alice.password}`);
    expect(banner).not.toContain('alice-password');
    // The documented password no longer signs in; the printed one does.
    const url = wide.info.enrollmentUrl.replace('0.0.0.0', '127.0.0.1');
    const signIn = (password: string) =>
      fetch(`${url}/keyspace/ABcd/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ username: 'alice', password }).toString(),
      });
    expect((await signIn('alice-password')).status).toBe(401);
    expect((await signIn(alice.password!)).status).toBe(200);
    await wide.stop();
    // With --tls the warning does not suggest it; on loopback there is none.
    const tls = await serve(['--host', '0.0.0.0', '--tls', '--no-context'], dir);
    const said = await saidWith(tls, 'For other shells');
    expect(said).toContain('WARNING: the mock listens on 0.0.0.0');
    expect(said).not.toContain('Add --tls');
    await tls.stop();
    const local = await serve(['--no-context'], dir);
    const quiet = await saidWith(local, 'For other shells');
    expect(quiet).not.toContain('WARNING');
    expect(quiet).toContain('password alice-password');
    await local.stop();
  });

  it('a restored --state beyond loopback says its users keep their stored passwords', async () => {
    const dir = await temp.make();
    const state = join(dir, 'state');
    const fresh = await serve(['--host', '0.0.0.0', '--no-context', '--state', state], dir);
    const password = fresh.info.users.find((u) => u.name === 'alice')!.password!;
    expect(await saidWith(fresh, 'For other shells')).toContain('got random passwords');
    await fresh.stop();
    const restored = await serve(['--host', '0.0.0.0', '--no-context', '--state', state], dir);
    const said = await saidWith(restored, 'For other shells');
    expect(said).toContain('keep the passwords stored in the state');
    expect(said).not.toContain('got random passwords');
    expect(restored.info.users.find((u) => u.name === 'alice')!.password).toBe(password);
    await restored.stop();
  });
});
