/**
 * No wait on the service is silent: against a slow mock (400 ms a request), every command that
 * talks to it shows a spinner naming what it waits for on a terminal, and nothing on a piped
 * stderr.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mockSuite } from '../helpers/mock-suite.js';

const suite = mockSuite({ latency: { minMs: 400, maxMs: 400 } });

/** What a spinner frame drew last before being cleared: `⠋ label`. */
const spinnerLabels = (stderr: string) =>
  [...stderr.matchAll(/\r\x1b\[2K[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] ([^\r]*)/g)].map((m) => m[1]!);

describe('waits on the service show a spinner on a terminal', () => {
  const commands: [argv: string[], label: RegExp][] = [
    [['markings', 'create', 'region', '--value', 'eu'], /create marking region/],
    [['markings', 'update', 'classification', '--description', 'x'], /marking/],
    [['markings', 'delete', 'classification', '--yes'], /marking/],
    [['markings', 'export'], /list markings|list values|marking/],
    [['markings', 'values', 'add', 'classification', 'secret'], /value|marking/],
    [['status'], /list markings|introspect/],
    [['markings', 'apply', '-f', 'FILE', '--dry-run'], /list markings|marking/],
  ];
  for (const [command, label] of commands) {
    let argv = command;
    it(`ksctl ${command.join(' ')}`, { timeout: 30_000 }, async () => {
      const created = await suite.mock.call('POST', '/v2/dev/markings', {
        name: 'classification',
        detail: { values: [{ name: 'public' }] },
      });
      expect(created.status).toBe(201);
      const file = join(suite.configDir, 'markings.yaml');
      await writeFile(file, 'markings:\n  - name: region\n    values: [eu]\n');
      argv = argv.map((a) => (a === 'FILE' ? file : a));
      const shown = await suite.ksctl(argv, { tty: true, columns: 80 });
      expect(shown.stderr).not.toMatch(/error:/);
      const labels = spinnerLabels(shown.stderr);
      expect(labels.length, shown.stderr).toBeGreaterThan(0);
      expect(labels.join('\n')).toMatch(label);
      // The spinner leaves a clean line behind it, and fits the terminal.
      for (const l of labels) expect(l.length).toBeLessThan(80);
      expect(shown.stderr).toMatch(/\r\x1b\[2K(?![⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏])/);

      await suite.mock.reset();
      await suite.mock.call('POST', '/v2/dev/markings', {
        name: 'classification',
        detail: { values: [{ name: 'public' }] },
      });
      const piped = await suite.ksctl(argv);
      expect(piped.stderr).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]|\r/);
    });
  }
});

describe('an unreachable service', () => {
  it('shows its retries on the spinner, not a line each, and fails with one error', async () => {
    const shown = await suite.ksctl(['markings', 'list'], {
      tty: true,
      columns: 80,
      env: { KSCTL_BASE_URL: 'http://127.0.0.1:9/v2/dev' },
    });
    expect(shown.code).toBe(7);
    expect(spinnerLabels(shown.stderr).join('\n')).toMatch(
      /connection refused, retrying in [\d.]+ s \(attempt 2 of 4\)/,
    );
    const lines = shown.stderr.split('\n').map((l) =>
      l
        .split('\r')
        .at(-1)!
        .replace(/\x1b\[2K/g, ''),
    );
    expect(lines.filter((l) => /retrying/.test(l))).toEqual([]);
    expect(lines[0]).toMatch(
      /^error: list markings: cannot reach the service at http:\/\/127\.0\.0\.1:9/,
    );
  });

  it('a marking looked up by its name is named in the error, not a listing the user never asked for', async () => {
    const shown = await suite.ksctl(['markings', 'get', 'classification'], {
      env: { KSCTL_BASE_URL: 'http://127.0.0.1:9/v2/dev' },
    });
    expect(shown.code).toBe(7);
    expect(shown.stderr).toMatch(
      /^error: find marking classification: cannot reach the service at http:\/\/127\.0\.0\.1:9/m,
    );
    expect(shown.stderr).not.toMatch(/list markings/);
  });

  it('piped, each retry is a plain line before the error', async () => {
    const shown = await suite.ksctl(['markings', 'list'], {
      env: { KSCTL_BASE_URL: 'http://127.0.0.1:9/v2/dev' },
    });
    expect(shown.code).toBe(7);
    const lines = shown.stderr.split('\n');
    expect(lines.slice(0, 3)).toEqual(
      [2, 3, 4].map((n) =>
        expect.stringMatching(
          new RegExp(
            `^list markings: connection refused, retrying in [\\d.]+ s \\(attempt ${n} of 4\\)$`,
          ),
        ),
      ),
    );
    expect(lines[3]).toMatch(/^error: list markings: cannot reach the service/);
    expect(shown.stderr).not.toMatch(/[\r\x1b]/);
  });
});

describe('a service that accepts and never answers', () => {
  let server: Server;
  let url: string;
  const sockets = new Set<Socket>();
  beforeAll(async () => {
    server = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2/dev`;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it('piped: the wait says so after a second, then each retry, then the error', async () => {
    const shown = await suite.ksctl(['markings', 'list'], {
      env: { KSCTL_BASE_URL: url, KSCTL_TIMEOUT: '2' },
      waitNotices: true,
    });
    expect(shown.code).toBe(7);
    const lines = shown.stderr.split('\n');
    expect(lines[0]).toBe('list markings: no answer yet after 1 s…');
    expect(lines.filter((l) => /^list markings: timed out, retrying in/.test(l))).toHaveLength(3);
    expect(shown.stderr).toMatch(
      /^error: list markings: cannot reach the service at .*: timed out$/m,
    );
    expect(shown.stderr).not.toMatch(/[\r\x1b]/);
  });

  it('piped, a single request (no retries) says it has no answer yet', async () => {
    const shown = await suite.ksctl(['markings', 'create', 'never'], {
      env: { KSCTL_BASE_URL: url, KSCTL_TIMEOUT: '2' },
      waitNotices: true,
    });
    expect(shown.code).toBe(7);
    expect(shown.stderr).toMatch(/^create marking never: no answer yet after 1 s…\nerror: /);
  });

  it('--quiet: only the error', async () => {
    const shown = await suite.ksctl(['markings', 'list', '--quiet'], {
      env: { KSCTL_BASE_URL: url, KSCTL_TIMEOUT: '1' },
      waitNotices: true,
    });
    expect(shown.code).toBe(7);
    expect(shown.stderr).toMatch(/^error: list markings: cannot reach the service/);
  });
});
