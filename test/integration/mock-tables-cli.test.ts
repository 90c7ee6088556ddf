/**
 * The mock's tables at 80 columns: relative times like every other table, the path whole, one
 * line a request when following, and an empty list said in words, not a bare header.
 */
import { describe, expect, it } from 'vitest';
import { mockEnv, startCli } from '../helpers/cli.js';
import { mockSuite } from '../helpers/mock-suite.js';

const suite = mockSuite();
const LONG_PATH = '/v2/dev/markings?valueLimit=0&skip=0&limit=1000';

async function request(path: string) {
  const answer = await fetch(suite.mock.info.url + path, {
    headers: { authorization: `Bearer ${suite.mock.token}` },
  });
  await answer.text();
}

describe('mock tables on an 80-column terminal', () => {
  it('mock requests: relative times, the path never cut', async () => {
    await request(LONG_PATH);
    const shown = await suite.ksctl(['mock', 'requests'], { tty: true, columns: 80 });
    expect(shown.code).toBe(0);
    const lines = shown.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^TIME +METHOD +PATH/);
    expect(lines[1]).toMatch(/^just now +GET +/);
    expect(lines[1]).toContain(LONG_PATH);
    for (const line of lines) expect(line.length).toBeLessThan(80);
    const piped = await suite.ksctl(['mock', 'requests']);
    expect(piped.stdout).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z\tGET\t/m);
  });

  it('an empty outbox and no devices say so on stderr, with no bare header', async () => {
    for (const [argv, said] of [
      [['mock', 'outbox'], 'no messages in the outbox'],
      [['mock', 'outbox', '--to', 'bob@example.com'], 'no messages to bob@example.com'],
      [['mock', 'devices'], 'no enrolled devices'],
    ] as const) {
      const shown = await suite.ksctl([...argv], { tty: true, columns: 80 });
      expect(shown.code).toBe(0);
      expect(shown.stdout).toBe('');
      expect(shown.stderr).toBe(`${said}\n`);
    }
  });

  it('mock requests --follow: one line a request, the path last and whole', async () => {
    await request(LONG_PATH);
    const following = startCli(['mock', 'requests', '--follow', '--interval', '100'], {
      stdoutIsTTY: true,
      columns: 80,
      env: { ...mockEnv(suite.mock, suite.configDir), KSCTL_PAGER: 'cat' },
    });
    for (let i = 0; i < 200 && following.stdout().split('\n').length < 3; i++) {
      await new Promise((r) => setTimeout(r, 25));
    }
    following.stop();
    expect(await following.exit).toBe(0);
    const lines = following.stdout().trimEnd().split('\n');
    expect(lines[0]).toMatch(/^TIME +METHOD +STATUS +MS +PATH$/);
    expect(lines[1]).toMatch(
      new RegExp(
        `^\\d\\d:\\d\\d:\\d\\d  GET     200     \\d+ +${LONG_PATH.replace(/[?]/g, '\\?')}$`,
      ),
    );
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
  });
});
