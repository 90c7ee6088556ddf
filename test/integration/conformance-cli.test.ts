/**
 * `ksctl conformance` (issue 32): the service in use against a fresh embedded mock. The service
 * here is ksctl's own mock behind a proxy of the tests' own that drifts its answers the way a
 * real service might; each drift is reported, naming the scenario, the request and the member, and
 * exits 10. Through a faithful proxy nothing differs and it exits 0.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ConformanceReport } from '../../src/client/conformance/report.js';
import type { Seed } from '../../src/mock/model/seed.js';
import { CATALOGUE } from '../../src/client/conformance/catalogue.js';
import { runCli, startCli } from '../helpers/cli.js';
import { changeJson, type DriftProxy, startDriftProxy } from '../helpers/drift-proxy.js';
import { startMock, type TestMock } from '../helpers/mock.js';
import { tempDirs } from '../helpers/temp.js';

const SEED: Seed = {
  markings: [
    {
      name: 'classification',
      description: 'Data classification level',
      defaultValue: 'internal',
      values: ['public', 'internal', { name: 'restricted', description: 'Need to know' }],
    },
    { name: 'country', public: true, values: ['de', 'fr', 'us'] },
    { name: 'project', adminOnly: true },
    { name: 'retention', description: 'How long', values: ['1y', '5y'] },
  ],
  tokens: [
    {
      token: 'ksctl-test-no-delete',
      name: 'no-delete',
      scopes: ['markings:read', 'markings:create', 'markings:update'],
    },
  ],
};

const dirs = tempDirs();
let mock: TestMock;
let proxy: DriftProxy;
let configDir: string;

beforeAll(async () => {
  mock = await startMock({ seed: SEED });
  proxy = await startDriftProxy(mock.info.url);
  configDir = await dirs.make();
});

afterAll(async () => {
  await proxy?.close();
  await mock?.close();
  await dirs.removeAll();
});

beforeEach(async () => {
  await mock.reset();
  proxy.drift = {};
});

/** The environment of a user whose service is the proxy. */
function env(extra: Record<string, string> = {}): Record<string, string> {
  const tenantPath = new URL(mock.baseUrl).pathname;
  return {
    KSCTL_CONFIG_DIR: configDir,
    KSCTL_BASE_URL: `${proxy.url}${tenantPath}`,
    KSCTL_TOKEN: mock.token,
    KSCTL_KEYSPACE: mock.info.keyspace,
    KSCTL_ENROLLMENT_URL: `${proxy.url}${new URL(mock.info.enrollmentUrl).pathname}`,
    KSCTL_API_URL: proxy.url,
    ...extra,
  };
}

const conformance = (args: string[] = [], extra: Record<string, string> = {}) =>
  runCli(['conformance', ...args], { env: env(extra) });

function report(stdout: string): ConformanceReport {
  return JSON.parse(stdout) as ConformanceReport;
}

function scenario(r: ConformanceReport, name: string) {
  const found = r.scenarios.find((s) => s.name === name);
  if (found === undefined) throw new Error(`no scenario "${name}" in the report`);
  return found;
}

async function prefixedMarkings(): Promise<string[]> {
  const { body } = await mock.call(
    'GET',
    '/v2/dev/markings?name__startswith=ksctl-conformance-&valueLimit=0',
  );
  return (body as { Resources: { name: string }[] }).Resources.map((m) => m.name);
}

describe('conformance through a faithful proxy', () => {
  it('reports every read-only scenario the same and exits 0', async () => {
    const result = await conformance(['-o', 'json']);
    expect(result.code, result.stderr).toBe(0);
    const r = report(result.stdout);
    const reads = CATALOGUE.filter((s) => s.writes !== true);
    expect(reads.length).toBeGreaterThanOrEqual(20);
    expect(r.scenarios.map((s) => s.name)).toEqual(reads.map((s) => s.name));
    expect(r.scenarios.filter((s) => s.result !== 'same')).toEqual([]);
    expect(r.summary).toMatchObject({
      mode: 'read-only',
      differs: 0,
      skipped: 0,
      same: reads.length,
    });
    for (const s of r.scenarios) {
      const promised = /\((\d{3})\)$/.exec(s.name)?.[1];
      expect(s.status!.mock, s.name).toBe(promised === undefined ? 200 : Number(promised));
    }
    expect(r.summary.legend.join('\n')).toMatch(/not compared: id, markingId/);
    // GETs only reached the service.
    const sent = (await mock.journal()).map((e) => e.method);
    expect(new Set(sent)).toEqual(new Set(['GET', 'POST']));
    expect((await mock.journal()).filter((e) => e.method === 'POST').map((e) => e.path)).toEqual([
      '/oauth2/introspect',
    ]);
  });

  it('prints a table, the summary and the legend; progress goes to stderr', async () => {
    const result = await conformance();
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^SCENARIO +RESULT +REASON$/m);
    expect(result.stdout).toMatch(/^list markings +same$/m);
    expect(result.stdout).toMatch(/scenarios: \d+ same, 0 differ, 0 skipped/);
    expect(result.stdout).toMatch(/^Legend/m);
    expect(result.stderr).toMatch(/starting the mock with the 4 markings of the service/);
    expect(result.stderr).toMatch(/\[1\/\d+\] list markings/);
    expect(result.stdout + result.stderr).not.toContain(mock.token);
  });

  it('shows the scenarios as a progress bar on a terminal, cleared before the report', async () => {
    const result = await runCli(['conformance'], { env: env(), tty: true });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/Comparing \d+ scenarios \[/);
    expect(result.stderr).not.toMatch(/\[1\/\d+\] list markings/);
    expect(result.stdout).toMatch(/^list markings +same$/m);
  });

  it('skips what needs a keyspace when none is set, saying so', async () => {
    const result = await conformance(['-o', 'json'], { KSCTL_KEYSPACE: '' });
    expect(result.code, result.stderr).toBe(0);
    expect(scenario(report(result.stdout), 'the keyspace public key')).toMatchObject({
      result: 'skipped',
      reason: expect.stringMatching(/no keyspace/),
    });
  });
});

/** A drift each, what the report must name, and the member that shows it. */
const DRIFTS: {
  what: string;
  drift: DriftProxy['drift'];
  scenario: string;
  request: RegExp;
  path: string;
}[] = [
  {
    what: 'a member renamed',
    drift: {
      answer: (method, path, a) =>
        method === 'GET' && path === '/v2/dev/markings'
          ? changeJson(a, (b) => {
              b.total = b.totalResults;
              delete b.totalResults;
            })
          : a,
    },
    scenario: 'list markings',
    request: /^GET \/markings$/,
    path: 'totalResults',
  },
  {
    what: 'another status and error code',
    drift: {
      answer: (_method, path, a) =>
        path.endsWith('/markings/ffffffffffffffffffffffff')
          ? changeJson({ ...a, status: 400 }, (b) => {
              (b.error as Record<string, unknown>).code = 40000;
            })
          : a,
    },
    scenario: 'get a marking, unknown id (404)',
    request: /^GET \/markings\/ffffffffffffffffffffffff$/,
    path: 'status',
  },
  {
    what: 'a query parameter ignored',
    drift: { request: (_method, path) => path.replace(/([?&])name__contains=[^&]*&?/, '$1') },
    scenario: 'filter: contains',
    request: /^GET \/markings\?name__contains=\w+&valueLimit=0$/,
    path: 'totalResults',
  },
  {
    what: 'a member missing',
    drift: {
      answer: (method, path, a) =>
        method === 'GET' && /\/markings\/[0-9a-f]{24}$/.test(path) && a.status === 200
          ? changeJson(a, (b) => {
              delete (b.detail as Record<string, unknown>).valueCount;
            })
          : a,
    },
    scenario: 'get a marking by id',
    request: /^GET \/markings\/[0-9a-f]{24}$/,
    path: 'detail.valueCount',
  },
];

describe('conformance through a drifting proxy', () => {
  for (const drift of DRIFTS) {
    it(`reports ${drift.what}: the scenario, the request, the member; exit 10`, async () => {
      proxy.drift = drift.drift;
      const json = await conformance(['-o', 'json']);
      expect(json.code, json.stderr).toBe(10);
      const found = scenario(report(json.stdout), drift.scenario);
      expect(found.result).toBe('differs');
      expect(found.request).toMatch(drift.request);
      expect(found.differences.map((d) => d.path)).toContain(drift.path);
      const table = await conformance();
      expect(table.code).toBe(10);
      expect(table.stdout).toMatch(new RegExp(`^${escape(drift.scenario)} +DIFFERS +\\S+: `, 'm'));
      const block = table.stdout.split(`\n${drift.scenario}:\n  ${found.request}\n`)[1];
      expect(block, table.stdout).toBeDefined();
      expect(block!.split('\n\n')[0]).toMatch(
        new RegExp(`^  ${escape(drift.path)}: .* on the target, .* on the mock$`, 'm'),
      );
    });
  }

  it('names the values on each side: renamed is absent on one, present on the other', async () => {
    proxy.drift = DRIFTS[0]!.drift;
    const r = report((await conformance(['-o', 'json'])).stdout);
    const differences = scenario(r, 'list markings').differences;
    expect(differences).toContainEqual({ path: 'totalResults', mock: 4 });
    expect(differences).toContainEqual({ path: 'total', target: 4 });
  });

  it('skips a scenario the service forbids (403), never a difference', async () => {
    proxy.drift = {
      answer: (_method, path, a) =>
        /\/values(\?|$)/.test(path)
          ? {
              status: 403,
              headers: { 'content-type': 'application/json' },
              body: '{"error":{"code":40300,"message":"no","cid":"x"}}',
            }
          : a,
    };
    const result = await conformance(['-o', 'json']);
    expect(result.code, result.stderr).toBe(0);
    expect(scenario(report(result.stdout), 'list values')).toMatchObject({
      result: 'skipped',
      reason: expect.stringMatching(/forbids it \(403\)/),
    });
  });

  it('writes JUnit XML for CI: a failure per differing scenario, skips as skipped', async () => {
    proxy.drift = DRIFTS[3]!.drift;
    const file = join(await dirs.make(), 'conformance.xml');
    const result = await conformance(['--junit', file]);
    expect(result.code).toBe(10);
    const xml = await readFile(file, 'utf8');
    expect(xml).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="ksctl conformance" tests="\d+" failures="1" skipped="0">/,
    );
    expect(xml).toMatch(
      /<testcase classname="ksctl.conformance" name="get a marking by id">\n +<failure message="detail.valueCount: 3 on the target, \(absent\) on the mock|<failure message="detail.valueCount: [^"]*" type="differs">/,
    );
    expect(xml.match(/<testcase /g)?.length).toBe(
      report((await conformance(['-o', 'json'])).stdout).summary.total,
    );
  });
});

describe('conformance: the service cannot be used', () => {
  it('exits 4 when the service refuses the credentials', async () => {
    const result = await conformance([], { KSCTL_TOKEN: 'not-a-token' });
    expect(result.code).toBe(4);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stdout).toBe('');
  });

  it('exits 7 when the service cannot be reached', async () => {
    const closed = await startDriftProxy('http://127.0.0.1:9');
    const url = closed.url;
    await closed.close();
    const result = await conformance([], { KSCTL_BASE_URL: `${url}/v2/dev`, KSCTL_TIMEOUT: '5' });
    expect(result.code).toBe(7);
    expect(result.stderr).toMatch(/cannot reach/);
  });

  it('says so, exit 3, when the service holds a marking the mock cannot take', async () => {
    proxy.drift = {
      answer: (method, path, a) =>
        method === 'GET' && /\/markings\?/.test(path)
          ? changeJson(a, (b) => {
              for (const m of b.Resources as { name: string }[]) m.name = ` ${m.name}`;
            })
          : a,
    };
    const result = await conformance();
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(
      /^error: the markings of the service cannot be given to the mock: .+white space/m,
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses flags that do not go together (exit 2)', async () => {
    for (const args of [['--seed', 'x.yaml'], ['--yes'], ['--write', '--replay', 'r.json']]) {
      const result = await conformance(args);
      expect(result.code, args.join(' ')).toBe(2);
    }
    expect(await mock.journal()).toEqual([]);
  });
});

describe('conformance --write', () => {
  it('needs --yes off a terminal, and asks on one; declined, nothing is written', async () => {
    const piped = await conformance(['--write']);
    expect(piped.code).toBe(2);
    expect(piped.stderr).toMatch(/confirmation needed/);
    const asked = await runCli(['conformance', '--write'], {
      env: env(),
      tty: true,
      answers: [false],
    });
    expect(asked.code).toBe(2);
    expect(asked.questions[0]).toMatch(/markings named ksctl-conformance-<random>-\*/);
    expect(
      (await mock.journal()).filter((e) => e.method !== 'GET' && e.path !== '/oauth2/introspect'),
    ).toEqual([]);
  });

  it('runs the writing scenarios the same through a faithful proxy and removes its markings', async () => {
    const result = await conformance(['--write', '--yes', '-o', 'json']);
    expect(result.code, result.stderr).toBe(0);
    const r = report(result.stdout);
    expect(r.summary.mode).toBe('write');
    expect(r.summary.prefix).toMatch(/^ksctl-conformance-[0-9a-f]{8}-$/);
    expect(r.summary.leftBehind).toEqual([]);
    const differing = r.scenarios.filter((s) => s.result === 'differs');
    expect(differing).toEqual([]);
    expect(r.scenarios.filter((s) => s.result === 'skipped').map((s) => s.name)).toEqual([
      "a request the token's scopes do not allow (403)",
    ]);
    expect(r.scenarios.length).toBe(CATALOGUE.length);
    // Each scenario gets the answer its name promises, so "same" is not two equal mistakes.
    for (const s of r.scenarios) {
      const promised = /\((\d{3})\)$/.exec(s.name)?.[1];
      if (promised !== undefined && s.status !== undefined) {
        expect(s.status, s.name).toEqual({ target: Number(promised), mock: Number(promised) });
      } else if (s.status !== undefined) {
        expect(s.status.mock, s.name).toBeLessThan(300);
      }
    }
    expect(await prefixedMarkings()).toEqual([]);
    // The markings the service held are as they were.
    const { body } = await mock.call('GET', '/v2/dev/markings?valueLimit=0');
    expect((body as { totalResults: number }).totalResults).toBe(4);
  });

  it('reports a write that answers otherwise (200 for a create) and still cleans up', async () => {
    proxy.drift = {
      answer: (method, path, a) =>
        method === 'POST' && /\/markings$/.test(path) && a.status === 201
          ? { ...a, status: 200 }
          : a,
    };
    const result = await conformance(['--write', '--yes', '-o', 'json']);
    expect(result.code).toBe(10);
    const found = scenario(
      report(result.stdout),
      'create a marking with values and a default value',
    );
    expect(found.differences).toContainEqual({ path: 'status', target: 200, mock: 201 });
    expect(await prefixedMarkings()).toEqual([]);
  });

  it('lists what the service refused to delete, with the command that removes it', async () => {
    let cleaning = false;
    proxy.drift = {
      refuse: (method) =>
        method === 'DELETE' && cleaning
          ? {
              status: 409,
              headers: { 'content-type': 'application/json' },
              body: '{"error":{"code":40900,"message":"in use","cid":"x"}}',
            }
          : undefined,
    };
    const running = startCli(['conformance', '--write', '--yes', '-o', 'json'], {
      env: { ...env(), KSCTL_TIMEOUT: '5' },
      onStderr: (chunk) => {
        if (/deleting the markings of the run/.test(chunk.toString())) cleaning = true;
      },
    });
    const code = await running.exit;
    expect(code, running.stderr()).toBe(0);
    const left = report(running.stdout()).summary.leftBehind!;
    expect(left.length).toBeGreaterThan(0);
    for (const l of left) {
      expect(l.name).toMatch(/^ksctl-conformance-[0-9a-f]{8}-/);
      expect(l.command).toBe(`ksctl markings delete ${l.name} --yes`);
    }
    // The words, whatever lines the message is broken over.
    expect(running.stderr().replace(/\s+/g, ' ')).toContain(
      `remove it with: ksctl markings delete ${left[0]!.name} --yes`,
    );
    expect((await prefixedMarkings()).sort()).toEqual(left.map((l) => l.name).sort());
  });

  it('compares the 403 of a scope the token lacks, and lists what it could not delete', async () => {
    const result = await conformance(['--write', '--yes', '-o', 'json'], {
      KSCTL_TOKEN: 'ksctl-test-no-delete',
    });
    expect(result.code, result.stderr).toBe(0);
    const r = report(result.stdout);
    expect(scenario(r, "a request the token's scopes do not allow (403)")).toMatchObject({
      result: 'same',
      request: 'DELETE /markings/ffffffffffffffffffffffff',
      status: { target: 403, mock: 403 },
    });
    // The deleting scenarios are forbidden on the service: skipped, not differences.
    expect(scenario(r, 'delete a marking').reason).toMatch(/forbids it \(403\)/);
    const left = r.summary.leftBehind!.map((l) => l.name).sort();
    expect(left).toEqual((await prefixedMarkings()).sort());
    expect(left.length).toBeGreaterThan(5);
    expect(result.stderr.replace(/\s+/g, ' ')).toContain(
      `remove it with: ksctl markings delete ${left[0]} --yes`,
    );
  });

  it('removes its markings when stopped with Ctrl-C, and exits 130', async () => {
    const running = startCli(['conformance', '--write', '--yes'], {
      env: env(),
      onStderr: (chunk) => {
        if (/\] update a marking, its description alone/.test(chunk.toString())) running.stop();
      },
    });
    const code = await running.exit;
    expect(code, running.stderr()).toBe(130);
    expect(running.stderr()).toMatch(
      /interrupted after \d+ scenarios; the markings of the run were deleted/,
    );
    expect(await prefixedMarkings()).toEqual([]);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
