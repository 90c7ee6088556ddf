/**
 * Both dialects of the device request format against the real `ksctl mock serve`, through an
 * independent client written from the SDK page (test/helpers/sdk-device.ts: its own crypto, cid,
 * envelope and AAD code, nothing from src/), behaving like each SDK where they differ. Then a
 * seeded run that interleaves v2.3 and v2.4 calls on one device and checks that every key's bytes
 * and attributes agree in both dialects. KSCTL_DIALECT_SEED=N replays another run.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { prng } from '../helpers/random.js';
import {
  type Attrs,
  type Dialect,
  type HeldKey,
  register,
  SdkDevice,
  SdkProtocolError,
} from '../helpers/sdk-device.js';
import { mockServeSuite } from '../helpers/spawn.js';

const suite = mockServeSuite();
const SEED = Number(process.env.KSCTL_DIALECT_SEED) || 16;

let rsa: { publicKey: KeyObject; privateKey: KeyObject };

beforeAll(() => {
  // One device key pair for every registration of the file: RSA-3072 takes a while to make.
  rsa = generateKeyPairSync('rsa', { modulusLength: 3072 });
}, 60_000);

async function admin(method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(suite.served.info.url + path, {
    method,
    headers: {
      authorization: `Bearer ${suite.served.info.token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(response.status, `${method} ${path}`).toBeLessThan(300);
  return response.json();
}

async function enroll(
  dialect: Dialect,
  options: { lowercaseField?: boolean; keyspace?: string } = {},
) {
  const keyspace = options.keyspace ?? suite.served.info.keyspace;
  const tokens = (await admin('POST', '/_mock/tokens', { user: 'alice', keyspace })) as {
    stoken: string;
    uidauth: string;
  };
  return register({
    apiUrl: suite.served.info.apiUrl,
    enrollmentUrl: suite.served.info.enrollmentUrl,
    keyspace,
    ...tokens,
    devicePublic: rsa.publicKey,
    devicePrivate: rsa.privateKey,
    dialect,
    lowercaseField: options.lowercaseField,
  });
}

/** How many requests the mock has journaled for a path. */
async function requestsTo(path: string): Promise<number> {
  const journal = (await admin('GET', '/_mock/requests')) as { requests: { path: string }[] };
  return journal.requests.filter((r) => r.path === path).length;
}

async function refused(promise: Promise<unknown>): Promise<SdkProtocolError> {
  const error = await promise.then(
    () => new Error('expected a refusal'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SdkProtocolError);
  return error as SdkProtocolError;
}

describe('as the Java SDK 2.9 speaks', () => {
  it('registers at /v2.4, then creates, fetches and updates keys (guarded and forced) with an unpadded nonce', async () => {
    const sep = await enroll('2.4');
    const java = new SdkDevice(sep, suite.served.info.apiUrl, { unpaddedNonce: true });
    const [key] = await java.create('2.4', 'ref', 1, { project: ['x'] }, { stage: ['draft'] });
    expect(java.cids[0]).toMatch(/^CID\|[^|]+\|\d{13}\|[A-Za-z0-9+/]{6}\|2\.4\.0$/);
    // Java routes a fetch by the key id: it starts with the device's keyspace.
    expect(key!.id.startsWith(java.keyspace) && key!.id.length > java.keyspace.length).toBe(true);

    const fetched = await java.fetch('2.4', [key!.id]);
    expect(fetched.keys).toHaveLength(1);
    expect(fetched.keys[0]).toMatchObject({
      key: key!.key,
      cattrs: { project: ['x'] },
      mattrs: { stage: ['draft'] },
      // The create answer's sigs are the key's: a guarded update may quote them.
      csig: key!.csig,
      msig: key!.msig,
    });

    const guarded = await java.modify([{ key: key!, mattrs: { stage: ['review'] } }]);
    expect(guarded.errors).toEqual({});
    const [after] = (await java.fetch('2.4', [key!.id])).keys;
    expect(after!.mattrs).toEqual({ stage: ['review'] });
    expect(guarded.modified).toEqual([{ id: key!.id, csig: after!.csig, msig: after!.msig }]);

    // The same update from the old copy is stale (4202) and changes nothing; forced, it goes.
    const stale = await java.modify([{ key: key!, mattrs: { stage: ['late'] } }]);
    expect(stale.modified).toEqual([]);
    expect(stale.errors[key!.id]?.code).toBe(4202);
    const forced = await java.modify([{ key: key!, mattrs: { stage: ['final'] }, force: true }]);
    expect(forced.errors).toEqual({});
    expect((await java.fetch('2.4', [key!.id])).keys[0]!.mattrs).toEqual({ stage: ['final'] });

    // Per-key failures of a fetch come in data.errorMap beside the keys found.
    const partly = await java.fetch('2.4', [key!.id, `${java.keyspace}Missing`]);
    expect(partly.keys.map((k) => k.id)).toEqual([key!.id]);
    expect(partly.errors[`${java.keyspace}Missing`]?.code).toBe(4004);

    // External ids: every query named in the answer, qty bounding the ids.
    await java.create('2.4', 'ext', 2, { 'ionic-external-id': ['doc-1'] });
    const byExt = await java.fetch('2.4', [], {
      'doc-1': { 'ionic-external-id': 'doc-1', qty: 1 },
      'doc-2': { 'ionic-external-id': 'doc-2' },
    });
    expect(byExt.queryResults?.['doc-1']?.ids).toHaveLength(1);
    expect(byExt.queryResults?.['doc-2']?.ids).toEqual([]);
    expect(byExt.keys.map((k) => k.id)).toEqual(byExt.queryResults?.['doc-1']?.ids);
  });

  it('gets resources (each unknown one answered as an error string) and logs messages (answer exactly {})', async () => {
    const java = new SdkDevice(await enroll('2.4'), suite.served.info.apiUrl, {
      unpaddedNonce: true,
    });
    const resources = await java.call('/v2.4/resources', '2.4', () => ({
      requests: [{ id: 'r1', resource: 'classification', args: '' }],
    }));
    const responses = (resources.inner.data as { responses: Record<string, unknown>[] }).responses;
    expect(responses).toEqual([
      { id: 'r1', data: '', error: expect.stringContaining('"classification"') },
    ]);
    const logged = await java.call('/v2.4/messages', '2.4', () => [
      { data: { event: 'opened', file: 'a.txt' }, message_type: 'ionic-file-open' },
    ]);
    expect(logged.inner).toEqual({});
    const kept = (await admin('GET', '/_mock/messages')) as {
      messages: { deviceId: string; type: string; data: unknown }[];
    };
    expect(kept.messages).toContainEqual({
      time: expect.any(String),
      deviceId: java.sep.deviceId,
      type: 'ionic-file-open',
      data: { event: 'opened', file: 'a.txt' },
    });
  });

  it('routes each key to the device whose keyspace prefixes its id', async () => {
    await admin('PUT', '/_mock/keyspaces/XYzw', { tenant: suite.served.info.tenantId });
    const devices = [
      new SdkDevice(await enroll('2.4'), suite.served.info.apiUrl, { unpaddedNonce: true }),
      new SdkDevice(await enroll('2.4', { keyspace: 'XYzw' }), suite.served.info.apiUrl, {
        unpaddedNonce: true,
      }),
    ];
    const created = [
      ...(await devices[0]!.create('2.4', 'ref', 2, {})),
      ...(await devices[1]!.create('2.4', 'ref', 2, {})),
    ];
    const route = (id: string) =>
      devices.find((d) => id.startsWith(d.keyspace) && id.length > d.keyspace.length)!;
    for (const key of created) {
      const fetched = await route(key.id).fetch('2.4', [key.id]);
      expect(fetched.keys.map((k) => k.key)).toEqual([key.key]);
    }
    expect(created.map((k) => route(k.id))).toEqual([
      devices[0],
      devices[0],
      devices[1],
      devices[1],
    ]);
  });
});

describe('as the JS SDK 2.0 speaks', () => {
  it('registers at /v2.3 with tkRespPubKDERB64, sends hfp at once (no 4001), and matches updates by index', async () => {
    const sep = await enroll('2.3', { lowercaseField: true });
    const js = new SdkDevice(sep, suite.served.info.apiUrl, { hfpFirst: true, textPlain: true });
    const before = await requestsTo('/v2.4/keys/create');
    const keys = await js.create('2.4', 'default', 3, { a: ['1'] });
    expect(js.cids[0]).toMatch(/^CID\|[^|]+\|\d{13}\|[A-Za-z0-9+/]{6}==\|2\.4\.0$/);
    // The fingerprint came with the first call: no 4001, no second attempt.
    expect(await requestsTo('/v2.4/keys/create')).toBe(before + 1);

    const fetched = await js.fetch(
      '2.4',
      keys.map((k) => k.id),
    );
    expect(fetched.keys.map((k) => k.key)).toEqual(keys.map((k) => k.key));

    // JS checks each answer against the request at the same index: the order must hold.
    const changes = [...keys].reverse().map((key, i) => ({
      key,
      mattrs: { n: [String(i)] },
      force: true,
    }));
    const updated = await js.modify(changes, 'js');
    expect(updated.modified.map((m) => m.id)).toEqual(changes.map((c) => c.key.id));
    // A stale item fails that key alone (matched by id as Java does: JS, matching by index,
    // can only take an answer where every key succeeds).
    const mixed = await js.modify([
      { key: fetched.keys[0]!, mattrs: { n: ['x'] }, stalePrev: true },
      { key: fetched.keys[1]!, mattrs: { n: ['y'] }, force: true },
    ]);
    expect(mixed.modified.map((m) => m.id)).toEqual([keys[1]!.id]);
    expect(mixed.errors[keys[0]!.id]?.code).toBe(4202);
  });
});

describe('as the Python samples speak (v2.3)', () => {
  it('creates and fetches with four-part cids; per-key errors under the inner error', async () => {
    const py = new SdkDevice(await enroll('2.3'), suite.served.info.apiUrl);
    const [key] = await py.create('2.3', 'firstKeyType', 1, {
      'ionic-protected-test': ['secret value'],
      'ionic-external-id': ['ext-9'],
    });
    expect(py.cids.at(-1)!.split('|')).toHaveLength(4);
    const fetched = await py.fetch('2.3', [key!.id, 'ABcdNope'], {
      qref0: { 'ionic-external-id': 'ext-9' },
    });
    expect(fetched.keys.map((k) => [k.id, k.key])).toEqual([[key!.id, key!.key]]);
    expect(fetched.keys[0]!.cattrs['ionic-protected-test']).toEqual(['secret value']);
    expect(fetched.errors.ABcdNope?.code).toBe(4004);
    expect(fetched.queryResults?.qref0?.ids).toEqual([key!.id]);
  });
});

describe('errors', () => {
  it('every error the device can open comes sealed under its cid, below 500', async () => {
    const device = new SdkDevice(await enroll('2.4'), suite.served.info.apiUrl);
    await device.fetch('2.4', []);
    // Not an object of the operation's shape: 40023, sealed.
    const shape = await refused(device.call('/v2.4/keys/create', '2.4', () => ({ x: 1 })));
    expect(shape.code).toBe(40023);
    // A create whose ref fails is one top-level error: no SDK reads per-ref errors there.
    const bad = await refused(device.create('2.4', '', 1, {}));
    expect(bad.code).toBe(4006);
    expect(bad.message).toContain('ref ""');
  });

  it('what cannot be sealed is a plain JSON error', async () => {
    const stranger = new SdkDevice(
      { deviceId: 'ABcd.1.unknown', idc: Buffer.alloc(32, 1), ks: Buffer.alloc(32, 2) },
      suite.served.info.apiUrl,
    );
    const error = await refused(stranger.fetch('2.4', []));
    expect(error.code).toBe(40120);
  });
});

describe(`one device, both dialects interleaved (seed ${SEED})`, () => {
  it('gives every key the same bytes and attributes, whichever dialect created, changed or fetches it', async () => {
    const random = prng(SEED);
    const device = new SdkDevice(
      await enroll(random.pick(['2.3', '2.4'] as const)),
      suite.served.info.apiUrl,
      {
        unpaddedNonce: random.next() < 0.5,
      },
    );
    const model = new Map<string, { key: Buffer; cattrs: Attrs; mattrs: Attrs }>();
    const held = new Map<string, HeldKey>();
    const value = () => random.pick(['red', 'green', 'blue', 'x,y', 'ü', '']);
    const steps: string[] = [];
    for (let step = 0; step < 40; step++) {
      const dialect = random.pick(['2.3', '2.4'] as const);
      const op = model.size === 0 ? 'create' : random.pick(['create', 'fetch', 'modify'] as const);
      steps.push(`${op}@${dialect}`);
      const where = `seed ${SEED}, step ${step}: ${steps.join(' ')}`;
      if (op === 'create') {
        const cattrs: Attrs = { color: [value()] };
        if (random.next() < 0.3) cattrs['ionic-protected-note'] = [value(), value()];
        const mattrs: Attrs = dialect === '2.4' && random.next() < 0.5 ? { stage: [value()] } : {};
        for (const key of await device.create(
          dialect,
          `r${step}`,
          1 + random.int(3),
          cattrs,
          mattrs,
        )) {
          model.set(key.id, { key: key.key, cattrs, mattrs });
          held.set(key.id, key);
        }
      } else if (op === 'fetch') {
        const ids = [...model.keys()].filter(() => random.next() < 0.6);
        const fetched = await device.fetch(dialect, ids);
        expect(fetched.errors, where).toEqual({});
        for (const key of fetched.keys) {
          const want = model.get(key.id)!;
          expect({ key: key.key, cattrs: key.cattrs, mattrs: key.mattrs }, where).toEqual(want);
          held.set(key.id, key);
        }
      } else {
        // Modify is v2.4 only; the key may have been created in either dialect.
        const id = random.pick([...model.keys()]);
        const mattrs: Attrs = random.next() < 0.2 ? {} : { stage: [value()], owner: [value()] };
        const force = random.next() < 0.3;
        const known = held.get(id)!;
        const fresh = (await device.fetch('2.4', [id])).keys[0]!;
        const stale = known.msig !== fresh.msig;
        const answer = await device.modify(
          [{ key: known, mattrs, force }],
          random.pick(['java', 'js'] as const),
        );
        if (stale && !force) {
          expect(answer.errors[id]?.code, where).toBe(4202);
        } else {
          expect(answer.errors, where).toEqual({});
          model.get(id)!.mattrs = mattrs;
        }
        held.set(id, fresh);
      }
    }
    const ids = [...model.keys()];
    for (const dialect of ['2.3', '2.4'] as const) {
      const all = await device.fetch(dialect, ids);
      expect(all.errors).toEqual({});
      expect(
        Object.fromEntries(
          all.keys.map((k) => [k.id, { key: k.key, cattrs: k.cattrs, mattrs: k.mattrs }]),
        ),
        `seed ${SEED}, final fetch in v${dialect}`,
      ).toEqual(Object.fromEntries(model));
    }
  });
});
