import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { type GlobalOptions, resolveConnection } from '../../src/client/config/settings.js';
import { ConfigStore } from '../../src/client/config/store.js';
import { NotFoundError, UsageError } from '../../src/common/errors.js';
import { tempDirs } from '../helpers/temp.js';

const dirs = tempDirs();
afterAll(() => dirs.removeAll());

let store: ConfigStore;
let dir: string;

beforeEach(async () => {
  dir = await dirs.make();
  store = await ConfigStore.open({ KSCTL_CONFIG_DIR: dir });
  await store.set('ctx', {
    baseUrl: 'http://context.example/v2/t',
    token: 'context-token',
    timeoutMs: 5000,
  });
  await store.set('other', { baseUrl: 'http://other.example/v2/t', username: 'u', password: 'p' });
  await store.use('ctx');
});

/** What resolveConnection reads `--token-file -` from. */
function stdin(text = ''): { stdin: PassThrough } {
  const s = new PassThrough();
  s.end(text);
  return { stdin: s };
}

const globals = (extra: Partial<GlobalOptions> = {}): GlobalOptions => ({ input: true, ...extra });

describe('resolveConnection: flag > environment > context > default', () => {
  it('takes everything from the current context', async () => {
    const c = await resolveConnection(globals(), {}, store, stdin());
    expect(c).toMatchObject({
      contextName: 'ctx',
      baseUrl: 'http://context.example/v2/t',
      auth: { kind: 'bearer', token: 'context-token' },
      timeoutMs: 5000,
    });
  });

  it('the environment beats the context', async () => {
    const c = await resolveConnection(
      globals(),
      {
        KSCTL_BASE_URL: 'http://env.example/v2/t',
        KSCTL_TOKEN: 'Bearer env-token',
        KSCTL_TIMEOUT: '2.5',
      },
      store,
      stdin(),
    );
    expect(c).toMatchObject({
      baseUrl: 'http://env.example/v2/t',
      auth: { kind: 'bearer', token: 'env-token' },
      timeoutMs: 2500,
    });
  });

  it('flags beat the environment', async () => {
    const tokenFile = join(dir, 'token');
    await writeFile(tokenFile, 'file-token\n');
    const c = await resolveConnection(
      globals({ baseUrl: 'http://flag.example/v2/t', tokenFile, timeout: 1 }),
      { KSCTL_BASE_URL: 'http://env.example/v2/t', KSCTL_TOKEN: 'env-token', KSCTL_TIMEOUT: '9' },
      store,
      stdin(),
    );
    expect(c).toMatchObject({
      baseUrl: 'http://flag.example/v2/t',
      auth: { kind: 'bearer', token: 'file-token' },
      timeoutMs: 1000,
    });
  });

  it('--token-file - reads the token from standard input', async () => {
    const c = await resolveConnection(
      globals({ tokenFile: '-' }),
      {},
      store,
      stdin('  piped-token\n'),
    );
    expect(c.auth).toEqual({ kind: 'bearer', token: 'piped-token' });
  });

  it('an empty token on standard input is a usage error', async () => {
    await expect(
      resolveConnection(globals({ tokenFile: '-' }), {}, store, stdin('\n')),
    ).rejects.toThrow(/standard input is empty/);
  });

  it('a missing token file is a usage error naming the file', async () => {
    const error = await resolveConnection(
      globals({ tokenFile: join(dir, 'nope') }),
      {},
      store,
      stdin(),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toContain('nope');
    expect((error as UsageError).message).toContain('no such file or directory');
    expect((error as UsageError).message).not.toContain('ENOENT');
  });

  it('--context and KSCTL_CONTEXT choose another context, the flag first', async () => {
    const env = { KSCTL_CONTEXT: 'other' };
    const fromEnv = await resolveConnection(globals(), env, store, stdin());
    expect(fromEnv).toMatchObject({
      contextName: 'other',
      auth: { kind: 'basic', username: 'u', password: 'p' },
    });
    const fromFlag = await resolveConnection(globals({ context: 'ctx' }), env, store, stdin());
    expect(fromFlag.contextName).toBe('ctx');
  });

  it('basic credentials from the environment beat a context token', async () => {
    const c = await resolveConnection(
      globals(),
      { KSCTL_USERNAME: 'eu', KSCTL_PASSWORD: 'ep' },
      store,
      stdin(),
    );
    expect(c.auth).toEqual({ kind: 'basic', username: 'eu', password: 'ep' });
  });

  it('an unknown context is not found (exit 5)', async () => {
    const error = await resolveConnection(globals({ context: 'nope' }), {}, store, stdin()).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).hint).toContain('ctx, other');
  });

  it('no base URL anywhere is a usage error (exit 2) saying how to give one', async () => {
    const empty = await ConfigStore.open({ KSCTL_CONFIG_DIR: await dirs.make() });
    const error = await resolveConnection(globals(), {}, empty, stdin()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect((error as UsageError).hint).toMatch(/--base-url.*KSCTL_BASE_URL/);
  });

  it('defaults: no credentials, a 30 second timeout', async () => {
    const empty = await ConfigStore.open({ KSCTL_CONFIG_DIR: await dirs.make() });
    const c = await resolveConnection(
      globals({ baseUrl: 'https://x.example/v2/t' }),
      {},
      empty,
      stdin(),
    );
    expect(c).toMatchObject({ contextName: undefined, auth: { kind: 'none' }, timeoutMs: 30_000 });
  });

  it.each([
    [{ KSCTL_BASE_URL: 'ftp://x.example' }, /not an http\(s\) URL/],
    [{ KSCTL_BASE_URL: 'not a url' }, /not an http\(s\) URL/],
    [{ KSCTL_TIMEOUT: 'soon' }, /KSCTL_TIMEOUT must be a positive number/],
    [{ KSCTL_TIMEOUT: '9999999' }, /KSCTL_TIMEOUT must be a positive number/],
    [{ KSCTL_TIMEOUT: '0' }, /KSCTL_TIMEOUT must be a positive number/],
  ])('%j is a usage error', async (env, message) => {
    const error = await resolveConnection(globals(), env, store, stdin()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
  });
});
