/**
 * `-o json` means JSON on stdout for every command: the ones that change something and used to
 * say so only on stderr (deletes, context and profile changes, mock reset, the console link) print
 * what they did as JSON (and YAML with -o yaml), and nothing more in a table.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { mockSuite } from '../helpers/mock-suite.js';

const suite = mockSuite({ dirPerTest: true });
const key = 'ab'.repeat(32);
const profile = (name: string, n: number) => ({
  name,
  deviceId: `ABcd.1.00000000-0000-4000-8000-00000000000${n}`,
  server: 'http://127.0.0.1:9',
  aesCdIdcKey: key,
  aesCdEiKey: key,
  creationTimestamp: 1_763_780_000 + n,
});

async function profilesFile(): Promise<string> {
  const path = join(suite.configDir, 'profiles.pt');
  const profiles = [profile('laptop', 1), profile('desk', 2)];
  await writeFile(path, JSON.stringify({ activeDeviceId: profiles[0]!.deviceId, profiles }), {
    mode: 0o600,
  });
  return path;
}

/** Runs a command with -o json and returns its stdout parsed; the command must succeed. */
async function json(argv: string[], stdin?: string): Promise<unknown> {
  const result = await suite.ksctl([...argv, '-o', 'json'], { stdin });
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout, `ksctl ${argv.join(' ')} -o json printed no JSON`).not.toBe('');
  return JSON.parse(result.stdout);
}

describe('-o json on commands that change something', () => {
  it('markings delete and values delete print what they deleted', async () => {
    const created = (await json(['markings', 'create', 'cm', '--value', 'a', '--value', 'b'])) as {
      id: string;
      detail: { values: { id: string; name: string }[] };
    };
    const value = created.detail.values.find((v) => v.name === 'b')!;
    expect(await json(['markings', 'values', 'delete', 'cm', 'b', '--yes'])).toEqual({
      marking: { id: created.id, name: 'cm' },
      deleted: [{ id: value.id, name: 'b' }],
    });
    expect(await json(['markings', 'delete', 'cm', '--yes'])).toEqual({
      deleted: [{ id: created.id, name: 'cm' }],
    });
    // YAML too; a table prints nothing on stdout (the message on stderr says it).
    await json(['markings', 'create', 'other']);
    const yaml = await suite.ksctl(['markings', 'delete', 'other', '--yes', '-o', 'yaml']);
    expect(parseYaml(yaml.stdout)).toMatchObject({ deleted: [{ name: 'other' }] });
    await json(['markings', 'create', 'third']);
    const table = await suite.ksctl(['markings', 'delete', 'third', '--yes']);
    expect(table).toMatchObject({ code: 0, stdout: '' });
    expect(table.stderr).toMatch(/^deleted marking third /);
  });

  it('context add, set, unset, rename, use and remove print the context', async () => {
    const url = 'http://127.0.0.1:9/v2/dev';
    const added = await json(
      ['context', 'add', 'other', '--base-url', url, '--token-file', '-'],
      'tok',
    );
    expect(added).toEqual({ name: 'other', current: true, baseUrl: url, auth: 'bearer token' });
    expect(await json(['context', 'set', 'other', 'timeout', '5'])).toMatchObject({
      name: 'other',
    });
    expect(await json(['context', 'unset', 'other', 'timeout'])).toMatchObject({ name: 'other' });
    expect(await json(['context', 'rename', 'other', 'second'])).toMatchObject({
      name: 'second',
      current: true,
    });
    expect(await json(['context', 'use', 'second'])).toMatchObject({ name: 'second' });
    expect(await json(['context', 'remove', 'second', '--yes'])).toEqual({
      name: 'second',
      removed: true,
      current: null,
    });
  });

  it('profiles use, delete and convert print the profile or the files', async () => {
    const path = await profilesFile();
    const at = ['--persistor', 'plaintext', '--persistor-path', path];
    expect(await json(['profiles', 'use', 'desk', ...at])).toEqual({
      name: 'desk',
      deviceId: profile('desk', 2).deviceId,
      active: true,
      path,
    });
    const copy = join(suite.configDir, 'copy.pt');
    expect(
      await json(['profiles', 'convert', ...at, '--to-persistor', 'plaintext', '--to-path', copy]),
    ).toEqual({
      profiles: 2,
      from: { path, persistor: 'plaintext' },
      to: { path: copy, persistor: 'plaintext' },
    });
    expect(await json(['profiles', 'delete', 'laptop', '--yes', ...at])).toEqual({
      deleted: { name: 'laptop', deviceId: profile('laptop', 1).deviceId },
      path,
      activeDeviceId: profile('desk', 2).deviceId,
    });
    expect(JSON.parse(await readFile(path, 'utf8')).profiles).toHaveLength(1);
  });

  it('mock reset and mock console print what they did', async () => {
    expect(await json(['mock', 'reset', '--yes'])).toEqual({
      url: suite.mock.info.url,
      reset: true,
    });
    const link = (await json(['mock', 'console', '--print'])) as { consoleUrl: string };
    expect(link.consoleUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/_mock\/console\/login\?code=/);
    // In a table the link alone, as before: `open "$(ksctl mock console --print)"`.
    const plain = await suite.ksctl(['mock', 'console', '--print']);
    expect(plain.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/_mock\/console\/login\?code=\S+\n$/);
  });
});
