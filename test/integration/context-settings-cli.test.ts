/**
 * Changing a context without losing what it holds: `context set`, `context unset`, `context
 * rename`, and `context add --force` saying what it replaces.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ContextConfig } from '../../src/client/config/store.js';
import { runCli, tsvRows } from '../helpers/cli.js';
import { contextSuite } from './context-fixtures.js';

const suite = contextSuite();
const { ksctl } = suite;

beforeEach(async () => {
  const added = await ksctl([
    'context',
    'add',
    'mock',
    '--base-url',
    suite.mock.baseUrl,
    '--token-file',
    suite.tokenFile,
    '--keyspace',
    'ABcd',
  ]);
  expect(added.code).toBe(0);
});

async function stored(): Promise<{
  currentContext?: string;
  contexts: Record<string, ContextConfig>;
}> {
  return JSON.parse(await readFile(join(suite.configDir, 'config.json'), 'utf8'));
}

describe('context set', () => {
  it('changes one setting and keeps the URL, token and keyspace', async () => {
    const result = await ksctl(['context', 'set', 'mock', 'timeout', '60']);
    expect(result).toMatchObject({ code: 0, stderr: 'updated context mock: set timeout 60 s\n' });
    expect((await stored()).contexts.mock).toEqual({
      baseUrl: suite.mock.baseUrl,
      token: suite.mock.token,
      keyspace: 'ABcd',
      timeoutMs: 60_000,
    });
    const listed = await ksctl(['markings', 'list']);
    expect(tsvRows(listed.stdout).map((r) => r[0])).toEqual(['from-mock']);
  });

  it('takes several pairs; a token read from stdin replaces user and password, and says so', async () => {
    const basic = await ksctl(['context', 'set', 'mock', 'username', 'dev', 'password-file', '-'], {
      stdin: 'pass-word-1\n',
    });
    expect(basic.stderr).toBe('updated context mock: set username dev, password; removed token\n');
    expect((await stored()).contexts.mock).toMatchObject({
      username: 'dev',
      password: 'pass-word-1',
    });
    const bearer = await ksctl(['context', 'set', 'mock', 'token-file', '-', 'keyspace', 'XYz9'], {
      stdin: `${suite.mock.token}\n`,
    });
    expect(bearer.code).toBe(0);
    expect(bearer.stderr).toBe(
      'updated context mock: set token, keyspace XYz9; removed username dev, password\n',
    );
    expect(bearer.stderr + bearer.stdout).not.toContain(suite.mock.token);
    const context = (await stored()).contexts.mock!;
    expect(context).toMatchObject({ token: suite.mock.token, keyspace: 'XYz9' });
    expect(context.username).toBeUndefined();
  });

  it.each([
    [['timeout'], 'give settings as KEY VALUE pairs'],
    [['colour', 'red'], 'unknown context setting "colour"'],
    [['token', 'secret-on-the-command-line'], 'use token-file PATH'],
    [['base-url', 'ftp://x'], 'base-url "ftp://x" is not an http(s) URL'],
    [['timeout', '0'], 'timeout must be a number of seconds'],
    [['keyspace', 'toolong'], 'keyspace "toolong" is not 4 letters or digits'],
    [['persistor', 'zip'], 'persistor must be one of plaintext, password, aesgcm'],
    [['timeout', '5', 'timeout', '6'], 'timeout is given twice'],
    [['username', 'dev'], 'username and password-file go together'],
  ])('%j is a usage error (exit 2) and changes nothing', async (pairs, message) => {
    const before = await stored();
    const result = await ksctl(['context', 'set', 'mock', ...pairs]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toContain('secret-on-the-command-line');
    expect(await stored()).toEqual(before);
  });

  it('an unknown context: exit 5', async () => {
    const result = await ksctl(['context', 'set', 'nope', 'timeout', '5']);
    expect(result.code).toBe(5);
    expect(result.stderr).toContain('context "nope" not found');
  });
});

describe('context unset', () => {
  it('removes settings and says which; the others stay', async () => {
    const result = await ksctl(['context', 'unset', 'mock', 'keyspace', 'timeout']);
    expect(result).toMatchObject({
      code: 0,
      stderr: 'updated context mock: removed keyspace ABcd\n',
    });
    expect((await stored()).contexts.mock).toEqual({
      baseUrl: suite.mock.baseUrl,
      token: suite.mock.token,
    });
    const again = await ksctl(['context', 'unset', 'mock', 'keyspace']);
    expect(again.stderr).toBe('context mock has none of these settings; nothing changed\n');
  });

  it('token names the stored secret; an unknown key is a usage error', async () => {
    expect((await ksctl(['context', 'unset', 'mock', 'token'])).stderr).toBe(
      'updated context mock: removed token\n',
    );
    const bad = await ksctl(['context', 'unset', 'mock', 'colour']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('known settings: base-url, token-file');
  });
});

describe('context add --force', () => {
  it('without --force: exit 6 and the context is kept', async () => {
    const result = await ksctl(['context', 'add', 'mock', '--timeout', '60']);
    expect(result.code).toBe(6);
    expect((await stored()).contexts.mock).toHaveProperty('token', suite.mock.token);
  });

  it('says what the replaced context had that is gone, even with --quiet', async () => {
    const result = await ksctl([
      'context',
      'add',
      'mock',
      '--force',
      '--timeout',
      '60',
      '--kns-url',
      'http://127.0.0.1:9',
      '--quiet',
    ]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      `replaced context mock (current); its previous base-url ${suite.mock.baseUrl}, token, keyspace ABcd are gone (\`ksctl context set\` changes single settings).\n`,
    );
    expect(result.stderr).not.toContain(suite.mock.token);
    expect((await stored()).contexts.mock).toEqual({
      timeoutMs: 60_000,
      knsUrl: 'http://127.0.0.1:9',
    });
  });
});

describe('a configuration directory that cannot be created', () => {
  it.skipIf(!existsSync('/proc/self'))('is refused at once with exit 3', async () => {
    const result = await runCli(['context', 'add', 'x', '--base-url', suite.mock.baseUrl], {
      env: { KSCTL_CONFIG_DIR: '/proc/newdir/ksctl' },
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('cannot create the directory /proc/newdir');
  });
});

describe('context rename', () => {
  it('renames; the current context follows', async () => {
    const result = await ksctl(['context', 'rename', 'mock', 'old-mock']);
    expect(result).toMatchObject({
      code: 0,
      stderr: 'renamed context mock to old-mock (current)\n',
    });
    const config = await stored();
    expect(config.currentContext).toBe('old-mock');
    expect(Object.keys(config.contexts)).toEqual(['old-mock']);
    expect(config.contexts['old-mock']).toMatchObject({
      token: suite.mock.token,
      keyspace: 'ABcd',
    });
    const listed = await ksctl(['markings', 'list']);
    expect(listed.code).toBe(0);
  });

  it.each([
    [['mock', 'mock'], 6, 'context "mock" already exists'],
    [['nope', 'other'], 5, 'context "nope" not found'],
    [['mock', 'bad name'], 2, 'invalid context name "bad name"'],
  ])('%j: exit %i, nothing changed', async (args, code, message) => {
    await ksctl(['context', 'add', 'other', '--base-url', suite.mock.baseUrl]);
    const before = await stored();
    const result = await ksctl(['context', 'rename', ...args]);
    expect(result.code).toBe(code);
    expect(result.stderr).toContain(message);
    expect(await stored()).toEqual(before);
  });
});
