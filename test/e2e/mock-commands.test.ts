/**
 * The mock commands people reach for, with the real binary against a spawned `ksctl mock serve`:
 * the users in `--json`, `mock tokens` for `eval`, `mock outbox`, `mock requests` (and
 * `--follow`), `mock devices`. Needs a build (`npm test` builds first).
 */
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../src/common/mock/wire.js';
import { tsvRows } from '../helpers/cli.js';
import { mockServeSuite, BIN } from '../helpers/spawn.js';

const suite = mockServeSuite();
const { ksctl } = suite;

describe('mock serve names its users', () => {
  it('--json lists the seeded users with their development passwords', () => {
    expect(suite.served.info.users).toEqual([
      {
        name: 'alice',
        tenant: 'dev',
        enabled: true,
        email: 'alice@example.com',
        password: 'alice-password',
      },
      {
        name: 'bob',
        tenant: 'dev',
        enabled: false,
        email: 'bob@example.com',
        password: 'bob-password',
      },
    ]);
  });
});

describe('mock tokens', () => {
  it('prints export lines: after eval, a child process sees both tokens', async () => {
    const script = `eval "$("${process.execPath}" "${BIN}" mock tokens --user alice)" && "${process.execPath}" -e 'process.stdout.write(process.env.KSCTL_STOKEN + " " + process.env.KSCTL_UIDAUTH)'`;
    const child = spawn('sh', ['-c', script], { env: suite.env() });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (t: string) => (out += t));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(out).toMatch(/^I\.[\w-]+ ,I[\w-]+\.[\w-]+$/);
  });
});

describe('mock outbox', () => {
  it('shows the code the portal e-mailed, filtered by address, as TSV and JSON', async () => {
    const response = await fetch(`${suite.served.info.enrollmentUrl}/keyspace/ABcd/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=alice%40example.com',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-ionic-reg-stoken')).toBeNull();

    const piped = await ksctl(['mock', 'outbox', '--to', 'Alice@Example.com']);
    expect(piped.code).toBe(0);
    const rows = tsvRows(piped.stdout);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.slice(1, 3)).toEqual(['alice@example.com', 'ABcd']);
    expect(rows[0]![3]).toMatch(/^I\.[\w-]{22}$/);

    const json = await ksctl(['mock', 'outbox', '-o', 'json', '--to', 'bob@example.com']);
    expect(JSON.parse(json.stdout)).toEqual([]);
  });
});

describe('mock requests', () => {
  it('lists the journal, newest last, leaving out the admin endpoints unless asked', async () => {
    await fetch(`${suite.served.info.url}/nowhere?token=secret-value`);
    const result = await ksctl(['mock', 'requests', '-o', 'json']);
    expect(result.code).toBe(0);
    const entries = JSON.parse(result.stdout) as JournalEntry[];
    expect(entries.at(-1)).toMatchObject({ method: 'GET', status: 404 });
    expect(entries.at(-1)!.path).toBe('/nowhere?token=%5Bredacted%5D');
    expect(entries.some((e) => e.path.startsWith('/_mock/'))).toBe(false);

    const withAdmin = await ksctl(['mock', 'requests', '--admin', '--tail', '3']);
    const rows = tsvRows(withAdmin.stdout);
    expect(rows.length).toBeLessThanOrEqual(3);
    expect(rows.some((row) => row[2]!.startsWith('/_mock/'))).toBe(true);
  });

  it('--follow prints new requests as they come, and stops on Ctrl-C', async () => {
    const child = spawn(
      process.execPath,
      [BIN, 'mock', 'requests', '--follow', '--tail', '0', '--interval', '100', '-o', 'json'],
      { env: suite.env(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (t: string) => (out += t));
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      // Until the follower has read the journal once, a request may count as already there.
      for (let i = 0; i < 200 && !out.includes('/followed'); i++) {
        await (await fetch(`${suite.served.info.url}/followed`)).body?.cancel();
        await sleep(100);
      }
      expect(out).toContain('"path":"/followed"');
      const line = out.split('\n').find((l) => l.includes('/followed'))!;
      expect(JSON.parse(line)).toMatchObject({ method: 'GET', status: 404 });
    } finally {
      child.kill('SIGINT');
    }
    expect(await closed).toBe(0);
  });
});

describe('mock devices', () => {
  it('lists an enrolled device, without its keys', async () => {
    const enrolled = await ksctl(['enroll', '--mock-user', 'alice', '--name', 'box']);
    expect(enrolled.code).toBe(0);
    const result = await ksctl(['mock', 'devices', '-o', 'json']);
    const devices = JSON.parse(result.stdout) as Record<string, unknown>[];
    expect(devices).toHaveLength(1);
    expect(devices[0]).toMatchObject({ user: 'alice', keyspace: 'ABcd', tenant: 'dev' });
    expect(Object.keys(devices[0]!).sort()).toEqual([
      'createdAt',
      'deviceId',
      'keyspace',
      'tenant',
      'user',
    ]);
    const piped = await ksctl(['mock', 'devices']);
    expect(tsvRows(piped.stdout)[0]![0]).toBe(devices[0]!.deviceId);
  });
});
