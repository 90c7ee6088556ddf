/**
 * Every enrollment cause of docs/design.md 2.3 through the mock and the CLI: the mock answers with the
 * cause's status and message (seen in the --debug trace and the mock's journal), and ksctl prints
 * the explanation with the code, the hint and the conversation id it sent, and exits with the
 * code docs/design.md 5 gives for the status. Fault rules produce each cause; the causes that can
 * happen naturally are produced naturally too.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TokenPair } from '../../src/common/enrollment/wire.js';
import { causeByCode, ENROLLMENT_CAUSES } from '../../src/common/enrollment/causes.js';
import { cliFor, conversationIdOf } from '../helpers/cli.js';
import { tempDirs } from '../helpers/temp.js';
import { enrollingSuite } from './mock-enroll-fixtures.js';
import { EXIT_BY_STATUS } from '../helpers/exit-codes.js';

const suite = enrollingSuite();
const dirs = tempDirs();
let dir: string;

beforeAll(async () => {
  dir = await dirs.make();
});

afterAll(() => dirs.removeAll());

const cli = cliFor(() => ({
  KSCTL_CONFIG_DIR: dir,
  KSCTL_HOME: dir,
  KSCTL_API_URL: suite.mock.info.apiUrl,
  KSCTL_ENROLLMENT_URL: suite.mock.info.enrollmentUrl,
  KSCTL_KEYSPACE: 'ABcd',
}));

async function mint(request: Record<string, unknown>): Promise<TokenPair> {
  const answer = await suite.mock.call('POST', '/_mock/tokens', request);
  expect(answer.status).toBe(200);
  return answer.body as TokenPair;
}

let enrollments = 0;

/** `ksctl --debug enroll` with a fresh pair (or the one given); checks the cause end to end. */
async function expectCause(
  code: number,
  options: { pair?: TokenPair; keyspace?: string } = {},
): Promise<void> {
  const cause = causeByCode(code)!;
  const keyspace = options.keyspace ?? 'ABcd';
  const pair = options.pair ?? (await mint({ user: 'alice', keyspace }));
  // A name of its own: enrollments under the host name would be numbered on, and say so.
  const name = `cause-${code}-${++enrollments}`;
  const result = await cli(['--debug', 'enroll', '--keyspace', keyspace, '--name', name], {
    env: { KSCTL_STOKEN: pair.stoken, KSCTL_UIDAUTH: pair.uidauth },
  });
  const errorLines = result.stderr.split('\n').filter((l) => !l.startsWith('[debug]'));
  expect(errorLines).toEqual([
    `error: ${cause.explanation} (${code})`,
    `hint: ${cause.hint}`,
    expect.stringMatching(/^conversation id: [0-9a-f-]{36}$/),
    '',
  ]);
  expect(result.code).toBe(EXIT_BY_STATUS[cause.status]);
  // What the mock answered: the status, and the message in the body.
  expect(result.stderr).toContain(`[debug] < ${cause.status} `);
  expect(result.stderr).toContain(`"code":${code},"message":${JSON.stringify(cause.message)}`);
  const cid = conversationIdOf(result.stderr);
  const sent = (await suite.mock.journal()).filter((r) => r.cid === `Basic ${cid}`);
  expect(sent.map((r) => ({ path: r.path, status: r.status }))).toEqual([
    { path: `/v2.3/register/${keyspace}`, status: cause.status },
  ]);
}

describe('every cause, from a fault rule', () => {
  it.each(ENROLLMENT_CAUSES.map((c) => [c.code, c.status, c.message] as const))(
    '%i (%i %s)',
    async (code) => {
      await suite.mock.setFaults([{ path: '/v2.3/register/ABcd', code, times: 1 }]);
      await expectCause(code);
    },
  );
});

describe('causes that happen naturally', () => {
  beforeEach(async () => {
    for (const [id, settings] of [
      ['NoEn', { enrollment: false }],
      ['Offl', { online: false }],
    ] as const) {
      expect((await suite.mock.call('PUT', `/_mock/keyspaces/${id}`, settings)).status).toBe(201);
    }
  });

  it('40101: a disabled user', async () => {
    await expectCause(40101, { pair: await mint({ user: 'bob' }) });
  });

  it('40105: an expired pair', async () => {
    await expectCause(40105, { pair: await mint({ user: 'alice', ttlSeconds: 0 }) });
  });

  it('40105: a UIDAUTH with the STOKEN of another pair', async () => {
    const [one, two] = [await mint({ user: 'alice' }), await mint({ user: 'alice' })];
    await expectCause(40105, { pair: { stoken: one.stoken, uidauth: two.uidauth } });
  });

  it('40901: a user the tenant does not have', async () => {
    await expectCause(40901, { pair: await mint({ user: 'mallory' }) });
  });

  it('40902: a pair that already enrolled a device', async () => {
    const pair = await mint({ user: 'alice' });
    const first = await cli(['enroll'], {
      env: { KSCTL_STOKEN: pair.stoken, KSCTL_UIDAUTH: pair.uidauth },
    });
    expect(first.code).toBe(0);
    await expectCause(40902, { pair });
  });

  it('41707: a keyspace with enrollment disabled', async () => {
    await expectCause(41707, { keyspace: 'NoEn' });
  });

  it('45102: a UIDAUTH without a user', async () => {
    await expectCause(45102, { pair: await mint({ omitUid: true }) });
  });

  it('50302: a keyspace whose key servers are offline', async () => {
    await expectCause(50302, { keyspace: 'Offl' });
  });

  it('an unknown code is explained by its status (502: exit 7)', async () => {
    await suite.mock.setFaults([{ path: '/v2.3/register/ABcd', status: 502, times: 1 }]);
    const pair = await mint({ user: 'alice' });
    const result = await cli(['enroll'], {
      env: { KSCTL_STOKEN: pair.stoken, KSCTL_UIDAUTH: pair.uidauth },
    });
    expect(result.stderr).toContain(
      'the enrollment service refused the registration with HTTP 502',
    );
    expect(result.stderr).toMatch(/^conversation id: [0-9a-f-]{36}$/m);
    expect(result.code).toBe(7);
  });
});
