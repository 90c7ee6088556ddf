/**
 * `ksctl api METHOD PATH`: its options (`--query`, `--header`, `--input`), the credentials sent
 * only to the service, and its mistakes caught before anything is sent. What it prints of odd
 * answers is in odd-answers; a query key given twice in markings-filter-cli.
 */
import { describe, expect, it } from 'vitest';
import { expectUsageError } from '../helpers/cli.js';
import { startMock } from '../helpers/mock.js';
import { mockSuite } from '../helpers/mock-suite.js';

describe('api: -q is the global --quiet, so the query option is --query only', () => {
  const suite = mockSuite({
    seed: { markings: [{ name: 'classification', values: ['a'] }] },
    dirPerTest: true,
  });
  const { ksctl } = suite;

  it('--query sends query parameters', async () => {
    const result = await ksctl(['api', 'GET', '/markings', '--query', 'limit=1']);
    expect(result.code).toBe(0);
    const journal = await suite.mock.journal();
    expect(journal.at(-1)!.path).toMatch(/\/markings\?limit=1$/);
  });

  it('the help no longer offers -q for a query', async () => {
    const help = await ksctl(['api', '--help']);
    // Its own options, that is: the global -q, --quiet is listed after them.
    const own = help.stdout.split('Global Options:')[0]!;
    expect(own).toMatch(/--query <key=value>/);
    expect(own).not.toMatch(/-q,|\s-q\s/);
  });

  it('sends the credentials only to the service: a full URL elsewhere is refused', async () => {
    // Another loopback server that would log the Authorization header if anything reached it.
    const other = await startMock({});
    try {
      const elsewhere = `${other.baseUrl}/markings`;
      const refused = await ksctl(['api', 'GET', elsewhere]);
      await expectUsageError(
        suite.mock,
        refused,
        /is not the service .*sends the credentials only there/,
      );
      expect(await other.journal()).toEqual([]);
      // The service's own full URL works like its path.
      const own = await ksctl(['api', 'GET', `${suite.mock.baseUrl}/markings`]);
      expect(own.code).toBe(0);
      expect(JSON.parse(own.stdout)).toMatchObject({ totalResults: 1 });
    } finally {
      await other.close();
    }
  });

  it('a header is checked, and a bad one is not echoed (it may hold a credential)', async () => {
    const result = await ksctl(['api', 'GET', '/markings', '-H', 'Bearer SECRET:x']);
    await expectUsageError(
      suite.mock,
      result,
      /--header number 1 is not valid: its name is not a header name/,
    );
    expect(result.stderr).not.toContain('SECRET');
    const control = await ksctl(['api', 'GET', '/markings', '-H', 'x-a: b\u0001c']);
    await expectUsageError(suite.mock, control, /its value is not one line of printable ASCII/);
  });
});

describe('api: mistakes in the request', () => {
  const suite = mockSuite({ seed: { markings: [{ name: 'region', values: ['eu'] }] } });
  const { ksctl } = suite;

  it('api: an unknown method, an --input that is not there, a path without its slash', async () => {
    const method = await ksctl(['api', 'FOO', '/markings']);
    expect(method.code).toBe(2);
    expect(method.stderr).toMatch(/^error: "FOO" is not an HTTP method\nhint: use one of GET,/m);
    expect(await suite.mock.journal()).toEqual([]);
    const input = await ksctl(['api', 'POST', '/markings', '--input', '/nonexistent/body.json']);
    expect(input.code).toBe(3);
    expect(input.stderr).toMatch(
      /^error: cannot read the --input file \/nonexistent\/body\.json: no such file/m,
    );
    const bare = await ksctl(['api', 'GET', 'markings']);
    expect(bare.code).toBe(0);
    expect(bare.stdout).toContain('"name": "region"');
  });
});
