/**
 * How `ksctl enroll` fails before the protocol: an unreachable URL named with the setting it came
 * from (flag, environment or context), an unknown keyspace, and a tokens file that is not one,
 * listed in a few lines without its text. The causes the service answers are in enroll-causes.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliFor, mockEnv, runCli } from '../helpers/cli.js';
import { enrollingSuite } from './mock-enroll-fixtures.js';

const suite = enrollingSuite();

/** The mock's URLs and dev token (for --mock-user), a throwaway config dir and home. */
const cli = cliFor(() => suite.markingsEnv());

/** A port nothing listens on (the discard port on loopback). */
const NOWHERE = 'http://127.0.0.1:9';

describe('an unreachable URL is named, with the setting it came from', () => {
  it.each([
    [
      ['--enrollment-url', NOWHERE],
      {},
      `fetch the key server public key of keyspace ABcd: cannot reach the enrollment URL ${NOWHERE}: connection refused`,
      'hint: check --enrollment-url and that the service is running',
    ],
    [
      ['--api-url', NOWHERE],
      {},
      `mint mock tokens for alice: cannot reach the API URL ${NOWHERE}: connection refused`,
      'hint: check --api-url and that the service is running',
    ],
    [
      [],
      { KSCTL_ENROLLMENT_URL: NOWHERE },
      `cannot reach the enrollment URL ${NOWHERE}: connection refused`,
      'hint: check KSCTL_ENROLLMENT_URL (or pass --enrollment-url) and that the service is running',
    ],
    [
      ['--kns-url', NOWHERE],
      { KSCTL_API_URL: undefined, KSCTL_ENROLLMENT_URL: undefined },
      `key naming lookup of keyspace ABcd: cannot reach the key naming lookup URL ${NOWHERE}: connection refused`,
      'hint: check --kns-url and that the service is running',
    ],
  ])('%j %j (exit 7)', async (flags, env, message, hint) => {
    const result = await cli(['enroll', '--mock-user', 'alice', ...flags], { env });
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain(hint);
    expect(result.stderr).not.toContain('unused.invalid');
    expect(result.stderr).not.toContain('--base-url');
    expect(result.code).toBe(7);
  });

  it('traces a URL from the context back to the context', async () => {
    const added = await cli([
      'context',
      'add',
      'lab',
      '--base-url',
      suite.mock.baseUrl,
      '--enrollment-url',
      NOWHERE,
      '--use',
    ]);
    expect(added.code).toBe(0);
    const result = await cli(['enroll', '--mock-user', 'alice'], {
      env: { KSCTL_ENROLLMENT_URL: undefined },
    });
    expect(result.stderr).toContain(
      `cannot reach the enrollment URL ${NOWHERE}: connection refused`,
    );
    expect(result.stderr).toContain(
      'hint: check the enrollment URL of the context (or pass --enrollment-url) and that the service is running',
    );
    expect(result.code).toBe(7);
  });
});

describe('an unknown keyspace', () => {
  it('enroll into an unknown keyspace says so, without a hint about the base URL', async () => {
    const result = await runCli(['enroll', '--mock-user', 'alice', '--keyspace', 'ZZzz'], {
      env: {
        ...mockEnv(suite.mock, suite.dir),
        KSCTL_HOME: suite.dir,
        KSCTL_API_URL: suite.mock.info.apiUrl,
        KSCTL_ENROLLMENT_URL: suite.mock.info.enrollmentUrl,
        KSCTL_KNS_URL: suite.mock.info.knsUrl,
      },
    });
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(/keyspace ZZzz not found/);
    expect(result.stderr).not.toMatch(/v2\/TENANT/);
  });
});

describe('a tokens file that is not one', () => {
  it('lists the first 50 problems, counts the rest, and never prints the text', async () => {
    const lines = Array.from({ length: 4000 }, (_, i) => `garbage${i}`);
    await writeFile(join(suite.dir, 'tokens'), lines.join('\n'));
    const result = await cli(['enroll', '--tokens-file', join(suite.dir, 'tokens')]);
    expect(result.code).toBe(3);
    const stderr = result.stderr.split('\n');
    expect(stderr[0]).toBe(
      `error: ${join(suite.dir, 'tokens')} has 4000 lines that are not token pairs; nothing was sent`,
    );
    expect(stderr.filter((l) => l.includes('expected "STOKEN UIDAUTH"'))).toHaveLength(50);
    expect(result.stderr).toContain('  … and 3950 more problems\n');
    expect(stderr.length).toBeLessThan(60);
    expect(result.stderr).not.toContain('garbage');
    expect(await suite.mock.journal()).toEqual([]);
  });

  it('says so in one sentence when one line is wrong, or the file is empty', async () => {
    await writeFile(join(suite.dir, 'tokens'), 'I.one ,Itwo\nnot-a-pair\n');
    const one = await cli(['enroll', '--tokens-file', join(suite.dir, 'tokens')]);
    expect(one.stderr).toContain(
      `error: ${join(suite.dir, 'tokens')} has a line that is not a token pair; nothing was sent`,
    );
    await writeFile(join(suite.dir, 'empty'), '\n');
    const empty = await cli(['enroll', '--tokens-file', join(suite.dir, 'empty')]);
    expect(empty.stderr).toContain(
      `error: the list of token pairs in ${join(suite.dir, 'empty')} is empty`,
    );
    expect(empty.code).toBe(2);
  });
});
