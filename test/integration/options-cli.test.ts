/**
 * Option values are checked before anything is sent: a number option states its bounds, and
 * flags that contradict each other are a usage error (exit 2). Timeouts are in timeouts, secrets
 * in secrets-cli.
 */
import { describe, expect, it } from 'vitest';
import { expectUsageError } from '../helpers/cli.js';
import { mockSuite } from '../helpers/mock-suite.js';

const suite = mockSuite({
  seed: { markings: [{ name: 'classification', values: ['a'] }] },
  dirPerTest: true,
});
const { ksctl } = suite;

describe('number options state their bounds', () => {
  it.each([
    [
      ['markings', 'list', '--limit', '1000000000'],
      /expected a whole number from 1 to 999999999\./,
    ],
    [
      ['markings', 'apply', '--concurrency', 'abc'],
      /expected a whole number from 1 to 999999999\./,
    ],
    [
      ['enroll', '--count', 'abc'],
      /'--count <n>' argument 'abc' is invalid\. expected a whole number from 1 to 10000\./,
    ],
    [['enroll', '--count', '999999999'], /expected a whole number from 1 to 10000\./],
    [['markings', 'list', '--value-limit', 'x'], /expected a whole number from 0 to 999999999\./],
  ])('%j', async (argv, message) => {
    await expectUsageError(suite.mock, await ksctl(argv), message);
  });
});

describe('flags that contradict each other', () => {
  it('--public --no-public is a usage error, nothing sent', async () => {
    for (const argv of [
      ['markings', 'list', '--public', '--no-public'],
      ['markings', 'update', 'region', '--no-public', '--public'],
    ]) {
      const result = await ksctl(argv);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^error: --public and --no-public contradict each other/m);
    }
    expect(await suite.mock.journal()).toEqual([]);
  });
});
