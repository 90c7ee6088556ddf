/**
 * `ksctl mock requests --bodies` (with and without --follow) and `ksctl mock requests show ID`
 * (issue 24): what was sent and answered, readable on a terminal and whole in JSON and YAML,
 * secrets redacted; one request described with the lines to send it again.
 */
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { JournalEntryWithBodies, RequestDetail } from '../../src/common/mock/wire.js';
import { mockEnv, startCli } from '../helpers/cli.js';
import { mockSuite } from '../helpers/mock-suite.js';

const suite = mockSuite();

async function createMarking(name: string): Promise<void> {
  const answer = await fetch(`${suite.mock.baseUrl}/markings`, {
    method: 'POST',
    headers: { authorization: `Bearer ${suite.mock.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, detail: { description: 'sent by the app' } }),
  });
  expect(answer.status).toBe(201);
  await answer.text();
}

describe('mock requests --bodies', () => {
  it('shows headers and bodies readably on a terminal, the token redacted', async () => {
    await createMarking('from-the-app');
    const shown = await suite.ksctl(['mock', 'requests', '--bodies'], { tty: true });
    expect(shown.code, shown.stderr).toBe(0);
    const out = shown.stdout;
    expect(out).toMatch(
      /^#\d+ {2}\S+Z {2}POST \/v2\/dev\/markings {2}→ 201 {2}[\d.]+ ms {2}\(markings\)$/m,
    );
    expect(out).toContain('  > authorization: Bearer [redacted]');
    expect(out).toContain('  > content-type: application/json');
    // JSON bodies indented, the request's and the answer's.
    expect(out).toContain('    {\n      "name": "from-the-app",\n      "detail": {');
    expect(out).toContain('  < content-type: application/json');
    expect(out).toMatch(/ {6}"id": "/);
    expect(out).not.toContain(suite.mock.token);
  });

  it('gives every entry whole with -o json and -o yaml', async () => {
    await createMarking('whole');
    const json = await suite.ksctl(['mock', 'requests', '--bodies', '-o', 'json']);
    const entries = JSON.parse(json.stdout) as JournalEntryWithBodies[];
    const create = entries.find((e) => e.method === 'POST')!;
    expect(create.side).toBe('markings');
    expect(JSON.parse(create.request.body)).toEqual({
      name: 'whole',
      detail: { description: 'sent by the app' },
    });
    expect(create.request.headers.authorization).toBe('Bearer [redacted]');
    expect(JSON.parse(create.response.body)).toMatchObject({ name: 'whole' });
    expect(json.stdout).not.toContain(suite.mock.token);
    const yaml = await suite.ksctl(['mock', 'requests', '--bodies', '-o', 'yaml', '--tail', '1']);
    const [last] = parseYaml(yaml.stdout) as JournalEntryWithBodies[];
    expect(last!.id).toBe(entries.at(-1)!.id);
    expect(last!.response.bytes).toBe(entries.at(-1)!.responseBytes);
  });

  it('--follow shows each new request with its bodies as it comes', async () => {
    const following = startCli(
      [
        'mock',
        'requests',
        '--bodies',
        '--follow',
        '--tail',
        '0',
        '--interval',
        '100',
        '-o',
        'json',
      ],
      { columns: 80, env: mockEnv(suite.mock, suite.configDir) },
    );
    try {
      // Until the follower has read the journal once, a request may count as already there.
      for (let i = 0; i < 100 && !following.stdout().includes('followed-'); i++) {
        await createMarking(`followed-${i}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      following.stop();
    }
    expect(await following.exit).toBe(0);
    const lines = following.stdout().trimEnd().split('\n');
    const entries = lines.map((line) => JSON.parse(line) as JournalEntryWithBodies);
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) {
      expect(entry.method).toBe('POST');
      expect(JSON.parse(entry.request.body).name).toMatch(/^followed-\d+$/);
      expect(entry.response.body).toContain('"name":"followed-');
    }
    // One line each, in order, none twice.
    const ids = entries.map((e) => e.id);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('mock requests show', () => {
  it('describes one request with curl and ksctl lines that hold no secret', async () => {
    await createMarking('shown');
    const listed = await suite.ksctl(['mock', 'requests', '-o', 'json']);
    const [create] = JSON.parse(listed.stdout) as { id: number }[];
    const shown = await suite.ksctl(['mock', 'requests', 'show', String(create!.id)], {
      tty: true,
    });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('Send it again:');
    expect(shown.stdout).toContain(
      `curl -X POST ${suite.mock.baseUrl}/markings -H "Authorization: Bearer $KSCTL_TOKEN"`,
    );
    expect(shown.stdout).toContain('| ksctl api POST /markings --input -');
    expect(shown.stdout).not.toContain(suite.mock.token);

    const json = await suite.ksctl(['mock', 'requests', 'show', String(create!.id), '-o', 'json']);
    const detail = JSON.parse(json.stdout) as RequestDetail;
    expect(detail).toMatchObject({ id: create!.id, method: 'POST', status: 201 });
    expect(detail.curl).toContain('--data-binary');
  });

  it('says plainly when there is no such request, or the id is not one', async () => {
    const missing = await suite.ksctl(['mock', 'requests', 'show', '99999']);
    expect(missing.code).toBe(5);
    expect(missing.stderr).toContain('the journal holds no request 99999');
    const bad = await suite.ksctl(['mock', 'requests', 'show', 'latest']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('a request id is a whole number from 1');
    expect(bad.stderr).not.toMatch(/\n\s+at /);
  });
});
