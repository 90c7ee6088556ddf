/** `ksctl status`: who, where, which scopes, whether the service answers, and the exit code. */
import { beforeAll, describe, expect, it } from 'vitest';
import { mockEnv, runCli } from '../helpers/cli.js';
import type { TestMock } from '../helpers/mock.js';
import { mockSuite } from '../helpers/mock-suite.js';

const READER = 'status-reader-token';
const suite = mockSuite({
  seed: { tokens: [{ token: READER, name: 'reader', scopes: ['markings:read'] }] },
});
let mock: TestMock;
let env: Record<string, string>;

beforeAll(() => {
  mock = suite.mock;
  env = { ...mockEnv(mock, suite.configDir), KSCTL_HOME: suite.configDir };
});

describe('ksctl status', () => {
  it('says who the token is, its scopes and that the service answers (exit 0)', async () => {
    const result = await runCli(['status', '-o', 'json'], { env });
    expect(result.code).toBe(0);
    const status = JSON.parse(result.stdout);
    expect(status).toMatchObject({
      baseUrl: mock.baseUrl,
      auth: 'bearer',
      principal: 'dev',
      scopes: ['markings:read', 'markings:create', 'markings:update', 'markings:delete'],
      canRead: true,
      service: { answered: true },
      profile: null,
      ok: true,
    });
    expect(status.service.ms).toBeGreaterThanOrEqual(0);
  });

  it('shows a narrower token as it is, on a terminal', async () => {
    const result = await runCli(['status'], { env: { ...env, KSCTL_TOKEN: READER }, tty: true });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Who: +reader$/m);
    expect(result.stdout).toMatch(/^Scopes: +markings:read$/m);
    expect(result.stdout).toMatch(/^Service: +answering, \d+ ms$/m);
    expect(result.stdout).not.toContain(READER);
  });

  it('exits 4 for a token the service does not know, without showing it', async () => {
    const result = await runCli(['status'], { env: { ...env, KSCTL_TOKEN: 'not-a-known-token' } });
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/^error: .*invalid credentials/m);
    expect(result.stdout + result.stderr).not.toContain('not-a-known-token');
  });

  it('exits 7 when nothing answers', async () => {
    const result = await runCli(['status'], {
      env: { ...env, KSCTL_BASE_URL: 'http://127.0.0.1:9/v2/dev', KSCTL_TIMEOUT: '2' },
    });
    expect(result.code).toBe(7);
    expect(result.stdout).toMatch(/^Service\tnot answering/m);
  });

  it('with the service down says who is unknown, not unreported', async () => {
    const result = await runCli(['status'], {
      env: { ...env, KSCTL_BASE_URL: 'http://127.0.0.1:9/v2/dev' },
    });
    expect(result.code).toBe(7);
    expect(result.stdout).toMatch(/^Who\tunknown \(no answer\)$/m);
    expect(result.stdout).not.toMatch(/not reported/);
  });

  it('exits 5 and names the missing /v2/TENANT when the base URL has none', async () => {
    const result = await runCli(['status'], {
      env: { ...env, KSCTL_BASE_URL: mock.info.url },
    });
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(/^hint: .*does not end in \/v2\/TENANT/m);
  });

  it('exits 2 with a hint when no service is configured', async () => {
    const result = await runCli(['status'], { env: { KSCTL_CONFIG_DIR: env.KSCTL_CONFIG_DIR! } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^hint: .*ksctl context add/m);
  });
});
