/**
 * Regressions of an audit: one parser of timeouts for the flag, KSCTL_TIMEOUT and a context; tokens
 * checked where the connection is resolved; number options that state their bounds.
 */
import { PassThrough } from 'node:stream';
import { InvalidArgumentError } from 'commander';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import {
  timeoutSeconds,
  wholeNumber,
  positiveWholeNumber,
  wholeNumberFrom,
} from '../../src/client/cli/kit/options.js';
import {
  bearerToken,
  environmentTimeoutMs,
  type GlobalOptions,
  parseTimeoutMs,
  resolveConnection,
} from '../../src/client/config/settings.js';
import { ConfigStore } from '../../src/client/config/store.js';
import { UsageError } from '../../src/common/errors.js';
import { tempDirs } from '../helpers/temp.js';

const dirs = tempDirs();
afterAll(() => dirs.removeAll());

/** What resolveConnection reads `--token-file -` from. */
function stdin(text = ''): { stdin: PassThrough } {
  const s = new PassThrough();
  s.end(text);
  return { stdin: s };
}

const globals = (extra: Partial<GlobalOptions> = {}): GlobalOptions => ({
  input: true,
  baseUrl: 'http://127.0.0.1:1/v2/t',
  ...extra,
});

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('timeouts: seconds from 0.001 to 86400, to whole milliseconds', () => {
  it.each([
    ['30', 30_000],
    ['2.5', 2_500],
    ['.5', 500],
    ['0.001', 1],
    ['0.0015', 2],
    ['0.007', 7],
    ['86400', 86_400_000],
  ])('%j is %d ms', (text, ms) => {
    expect(parseTimeoutMs(text)).toBe(ms);
    expect(Number.isInteger(parseTimeoutMs(text))).toBe(true);
  });

  // 9999999 and 4294968 s overflowed Node's timers ("delay is out of range ... a bug", exit 1);
  // 0.0001 s was 0.1 ms ("It must be an integer").
  it.each([
    '9999999',
    '4294968',
    '86400.5',
    '0.0001',
    '0.0009',
    '0',
    '-5',
    'abc',
    '',
    '1e3',
    '0x10',
    'Infinity',
  ])('rejects %j', (text) => {
    expect(parseTimeoutMs(text)).toBeUndefined();
    const error = thrown(() => timeoutSeconds(text));
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as Error).message).toBe('expected a number of seconds from 0.001 to 86400.');
  });

  it('the flag keeps whole milliseconds', () => {
    expect(timeoutSeconds('0.0015')).toBe(0.002);
  });

  it('KSCTL_TIMEOUT goes through the same parser and names itself', () => {
    expect(environmentTimeoutMs({ KSCTL_TIMEOUT: '2.5' })).toBe(2_500);
    expect(environmentTimeoutMs({ KSCTL_TIMEOUT: '' })).toBeUndefined();
    expect(environmentTimeoutMs({})).toBeUndefined();
    for (const text of ['9999999', '-5', 'abc', '0.0001']) {
      const error = thrown(() => environmentTimeoutMs({ KSCTL_TIMEOUT: text }));
      expect(error).toBeInstanceOf(UsageError);
      expect((error as UsageError).message).toBe(
        `KSCTL_TIMEOUT must be a positive number of seconds, not "${text}"`,
      );
      expect((error as UsageError).hint).toMatch(/from 0\.001 to 86400/);
    }
  });
});

describe('resolveConnection: timeouts and tokens from every source are checked', () => {
  let store: ConfigStore;
  beforeEach(async () => {
    store = await ConfigStore.open({ KSCTL_CONFIG_DIR: await dirs.make() });
  });

  it('flag > KSCTL_TIMEOUT > context > 30 s, always whole milliseconds', async () => {
    await store.set('ctx', { timeoutMs: 5000 });
    await store.use('ctx');
    const resolve = (g: Partial<GlobalOptions>, env: NodeJS.ProcessEnv) =>
      resolveConnection(globals(g), env, store, stdin()).then((c) => c.timeoutMs);
    expect(await resolve({ timeout: timeoutSeconds('0.007') }, { KSCTL_TIMEOUT: '9' })).toBe(7);
    expect(await resolve({}, { KSCTL_TIMEOUT: '9' })).toBe(9000);
    expect(await resolve({}, {})).toBe(5000);
    expect(await resolve({ context: undefined }, { KSCTL_CONTEXT: '' })).toBe(5000);
  });

  it.each([1e12, 0, -5, '30'])(
    'a context that stores timeoutMs %j is a usage error',
    async (ms) => {
      await store.set('ctx', { timeoutMs: ms as number });
      await store.use('ctx');
      const error = await resolveConnection(globals(), {}, store, stdin()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UsageError);
      expect((error as Error).message).toBe(
        'the timeout stored in context "ctx" is not a number of seconds from 0.001 to 86400',
      );
    },
  );

  const SECRET = 'S3CRET';

  it.each([
    ['two lines', `${SECRET}\nsecond\n`, 'has more than one line'],
    ['binary bytes', `${SECRET}\u0000\u00ff\u0001`, 'has a character that is not visible ASCII'],
    ['a space inside', `${SECRET} x`, 'has a character that is not visible ASCII'],
  ])('a token file with %s is a usage error naming the file', async (_what, text, problem) => {
    const error = await resolveConnection(
      globals({ tokenFile: '-' }),
      {},
      store,
      stdin(text),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain(
      `the token in standard input (--token-file -) ${problem}`,
    );
    expect(`${(error as Error).message} ${(error as UsageError).hint}`).not.toContain(SECRET);
  });

  it('a token file with one trailing newline and a Bearer prefix is fine', async () => {
    const c = await resolveConnection(
      globals({ tokenFile: '-' }),
      {},
      store,
      stdin(`Bearer ${SECRET}\n`),
    );
    expect(c.auth).toEqual({ kind: 'bearer', token: SECRET });
  });

  it('KSCTL_TOKEN with a control character is a usage error naming KSCTL_TOKEN', async () => {
    const error = await resolveConnection(
      globals(),
      { KSCTL_TOKEN: `a\u0001${SECRET}` },
      store,
      stdin(),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(/^the token in KSCTL_TOKEN has a character/);
    expect((error as Error).message).not.toContain(SECRET);
  });

  it('a token stored in a context is checked too, and named by the context', async () => {
    await store.set('ctx', { token: `${SECRET}\r\nx` });
    await store.use('ctx');
    const error = await resolveConnection(globals(), {}, store, stdin()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect((error as Error).message).toBe('the token in context "ctx" has more than one line');
  });

  it('bearerToken never returns or reports anything but visible ASCII', () => {
    expect(bearerToken('bearer abc.DEF-123_~+/=', 'X')).toBe('abc.DEF-123_~+/=');
    expect(thrown(() => bearerToken('Bearer ', 'X'))).toMatchObject({
      message: 'the token in X is empty',
    });
    expect(thrown(() => bearerToken('tökén', 'X'))).toBeInstanceOf(UsageError);
  });
});

describe('whole-number options state their bounds', () => {
  it.each([
    [wholeNumber, '1000000000', 'expected a whole number from 0 to 999999999.'],
    [wholeNumber, 'abc', 'expected a whole number from 0 to 999999999.'],
    [positiveWholeNumber, 'abc', 'expected a whole number from 1 to 999999999.'],
    [positiveWholeNumber, '0', 'expected a whole number from 1 to 999999999.'],
    [wholeNumberFrom(1, 10_000), '999999999', 'expected a whole number from 1 to 10000.'],
    [wholeNumberFrom(1, 10_000), '-1', 'expected a whole number from 1 to 10000.'],
    [wholeNumberFrom(1, 10_000), '1.5', 'expected a whole number from 1 to 10000.'],
  ])('%#: %j', (parse, text, message) => {
    const error = thrown(() => parse(text));
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as Error).message).toBe(message);
  });

  it('accepts the bounds themselves', () => {
    expect(wholeNumber('0')).toBe(0);
    expect(wholeNumber('999999999')).toBe(999_999_999);
    expect(wholeNumberFrom(1, 10_000)('10000')).toBe(10_000);
  });
});
