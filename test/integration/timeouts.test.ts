/**
 * The per-request timeout: `--timeout` and KSCTL_TIMEOUT out of range are usage errors (exit 2)
 * naming their source and sending nothing; a service slower than the timeout, or a body that
 * keeps trickling past it, is cut off with exit 7. A context's own timeout is in context-cli.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/client/api/client.js';
import { ServiceError } from '../../src/common/errors.js';
import { expectUsageError, mockEnv, runCli } from '../helpers/cli.js';
import { startMock } from '../helpers/mock.js';
import { mockSuite } from '../helpers/mock-suite.js';

const suite = mockSuite({
  seed: { markings: [{ name: 'classification', values: ['a'] }] },
  dirPerTest: true,
});
const { ksctl } = suite;

describe('timeouts out of range are usage errors, not a bug (exit 1) nor ignored', () => {
  it.each(['9999999', '4294968', '0.0001', 'abc', '-5'])('--timeout %s', async (seconds) => {
    await expectUsageError(
      suite.mock,
      await ksctl(['markings', 'list', '--timeout', seconds]),
      /option '--timeout <seconds>' argument .* is invalid\. expected a number of seconds from 0\.001 to 86400\./,
    );
  });

  it.each(['9999999', '4294968', '0.0001', 'abc', '-5'])('KSCTL_TIMEOUT=%s', async (seconds) => {
    await expectUsageError(
      suite.mock,
      await ksctl(['markings', 'list'], { env: { KSCTL_TIMEOUT: seconds } }),
      /^error: KSCTL_TIMEOUT must be a positive number of seconds, not ".*"\nhint: a timeout is a number of seconds from 0\.001 to 86400/,
    );
  });

  // enroll read KSCTL_TIMEOUT on its own: -5 ended in exit 1, abc was ignored.
  it.each(['-5', 'abc'])('enroll with KSCTL_TIMEOUT=%s', async (seconds) => {
    await expectUsageError(
      suite.mock,
      await ksctl(['enroll', '--mock-user', 'alice', '--keyspace', 'ABcd'], {
        env: { KSCTL_TIMEOUT: seconds, KSCTL_HOME: suite.configDir },
      }),
      /KSCTL_TIMEOUT must be a positive number of seconds/,
    );
  });

  it('--timeout 0.0015 is 2 ms: a slow service times out (exit 7), not a bug', async () => {
    const slow = await startMock({ latency: { minMs: 200, maxMs: 200 } });
    try {
      const result = await runCli(['markings', 'list', '--timeout', '0.0015'], {
        env: mockEnv(slow, suite.configDir),
      });
      expect(result.code).toBe(7);
      expect(result.stderr).toMatch(/timed out/);
    } finally {
      await slow.close();
    }
  });

  it('the client takes a timeout a hair off whole milliseconds (seconds × 1000)', async () => {
    const timeoutMs = (0.1 + 0.2) * 10_000; // 3000.0000000000005
    expect(Number.isInteger(timeoutMs)).toBe(false);
    const client = new ApiClient({
      baseUrl: suite.mock.baseUrl,
      auth: { kind: 'bearer', token: suite.mock.token },
      timeoutMs,
    });
    try {
      expect((await client.request('GET', '/markings')).status).toBe(200);
    } finally {
      await client.close();
    }
  });
});

describe('the timeout holds under a second, and over a trickling body', () => {
  it('--timeout 0.1 against a service that answers after 400 ms fails with exit 7', async () => {
    const slow = await startMock({ latency: { minMs: 400, maxMs: 400 } });
    try {
      const result = await runCli(['markings', 'list', '--timeout', '0.1'], {
        env: mockEnv(slow, await suite.makeDir()),
      });
      expect(result.code).toBe(7);
      expect(result.stderr).toMatch(/list markings: cannot reach the service at .*: timed out/);
    } finally {
      await slow.close();
    }
  });

  it('an answer whose body keeps trickling past the timeout is cut off', async () => {
    let bodyEnded = false;
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[');
      let sent = 0;
      const timer = setInterval(() => {
        sent++;
        if (sent < 15) res.write(' ');
        else {
          clearInterval(timer);
          bodyEnded = true;
          res.end(']');
        }
      }, 40);
      res.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const slowClient = new ApiClient({
      baseUrl: `http://127.0.0.1:${port}`,
      auth: { kind: 'none' },
      timeoutMs: 200,
      retries: 0,
    });
    try {
      const error = await slowClient.request('GET', '/slow').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServiceError);
      expect((error as ServiceError).message).toMatch(/timed out/);
      // The client gave up while the server was still sending the body.
      expect(bodyEnded).toBe(false);
    } finally {
      await slowClient.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
