/**
 * Device requests end to end: the real `bin/ksctl.js` against a spawned `ksctl mock serve`, with
 * a device enrolled by ksctl (real RSA-3072) and, when a checkout of the vendor's Python sample
 * client is given, one enrolled by that client. Both create, fetch and modify keys.
 *
 * The vendor part needs KSCTL_IONIC_DEVREQ_PY (a checkout of IonicDev/ionic-devreq-api-python)
 * and python3 with `cryptography` and `requests`; it is skipped, with the reason printed, without.
 * The sample's enrollment calls a signing API that newer `cryptography` releases dropped; the
 * driver then gives it the same RSA-PSS signature through the current API.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tsvRows } from '../helpers/cli.js';
import { mockServeSuite } from '../helpers/spawn.js';

const suite = mockServeSuite();
const { ksctl } = suite;

beforeAll(async () => {
  // The mock context it wrote makes markings commands and --mock-user work straight away.
  const marking = await ksctl([
    'markings',
    'create',
    'classification',
    '--value',
    'public',
    '--value',
    'internal',
    '--default-value',
    'internal',
  ]);
  expect(marking.code, marking.stderr).toBe(0);
}, 60_000);

describe('a device enrolled by ksctl', () => {
  it('enrolls with --verify, then creates, fetches and modifies keys with markings', async () => {
    const enrolled = await ksctl(['enroll', '--mock-user', 'alice', '--name', 'qa', '--verify']);
    expect(enrolled.code, enrolled.stderr).toBe(0);
    expect(enrolled.stderr).toMatch(/verified: created key ABcd\w+ with the new profile/);

    const refused = await ksctl(['keys', 'create', '--attr', 'classification=secret']);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('allowed: "internal", "public"');

    const created = await ksctl(['keys', 'create', '--attr', 'project=x', '-o', 'json']);
    expect(created.code, created.stderr).toBe(0);
    const [key] = JSON.parse(created.stdout) as { id: string; attributes: object }[];
    expect(key!.attributes).toEqual({ project: ['x'], classification: ['internal'] });

    const modified = await ksctl(['keys', 'modify', key!.id, '--attr', 'classification=public']);
    expect(modified.code, modified.stderr).toBe(0);
    const fetched = await ksctl(['keys', 'fetch', key!.id]);
    expect(tsvRows(fetched.stdout)).toEqual([
      [key!.id, 'project=x; classification=internal', 'classification=public'],
    ]);

    const checked = await ksctl(['profiles', 'check', 'qa']);
    expect(checked.code, checked.stderr).toBe(0);
    expect(checked.stderr).toContain('profile "qa" works');
  }, 60_000);
});

const VENDOR = process.env.KSCTL_IONIC_DEVREQ_PY;

function vendorSkipReason(): string | undefined {
  if (!VENDOR)
    return 'KSCTL_IONIC_DEVREQ_PY is not set (a checkout of IonicDev/ionic-devreq-api-python)';
  if (!existsSync(join(VENDOR, 'keys', 'key_create.py'))) {
    return `${VENDOR} has no keys/key_create.py`;
  }
  const probe = spawnSync('python3', ['-c', 'import cryptography, requests'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0)
    return 'python3 with cryptography and requests is not available';
  return undefined;
}

const skipVendor = vendorSkipReason();

/**
 * Drives the vendor's own functions: enrollment (registration.create_device), key create and
 * fetch (keys.create_keys, keys.fetch_keys, which check the service's HMAC signatures and open
 * protected attributes), and its plaintext persistor. Its prints go to stderr; stdout is one JSON.
 */
const DRIVER = String.raw`
import contextlib, json, sys
sys.path.insert(0, sys.argv[1])
api_url, enrollment_url, keyspace, stoken, uidauth, profiles_path = sys.argv[2:8]
with contextlib.redirect_stdout(sys.stderr):
    import registration.register as register
    from registration import create_device
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding, rsa
    if not hasattr(rsa.RSAPrivateKey, 'signer'):
        # cryptography 37 dropped the signer() the sample (written for 2.9) calls: same PSS
        # signature through sign().
        pss = padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=32)
        register.sign_with_rsa_pss = lambda key, message: key.sign(message, pss, hashes.SHA256())
    from keys import create_keys, fetch_keys
    from persistors import ProfilePersistorPlaintext
    sep = create_device(api_url, keyspace, enrollment_url, stoken, uidauth)
    persistor = ProfilePersistorPlaintext()
    persistor.add_sep(sep, set_as_active=True)
    persistor.set_file_path(profiles_path)
    persistor.save_to_json()
    # The first request of a device meets the fingerprint exchange (4001); the sample's create
    # retries it with the attributes it has already encrypted in place, so they would be sealed
    # twice. A first fetch spends the exchange.
    fetch_keys(sep, [])
    created = create_keys(sep, {'classification': ['public'], 'ionic-protected-test': ['secret value']})
    fetched, _ = fetch_keys(sep, list(created.keys()))
print(json.dumps({
    'deviceId': sep.deviceId,
    'created': {k: v['key'].hex() for k, v in created.items()},
    'fetched': {k: {'key': v['bytes'].hex(), 'attributes': v['attributes']} for k, v in fetched.items()},
}))
`;

describe('a device enrolled by the vendor Python client', () => {
  // The run's skip summary says why (test/helpers/skip-summary.ts).
  beforeEach((context) => {
    if (skipVendor) context.skip(`the vendor Python client test: ${skipVendor}`);
  });
  it('enrolls, creates and fetches keys with the vendor code; ksctl modifies them with its profile', async () => {
    const tokens = (await (
      await fetch(`${suite.served.info.url}/_mock/tokens`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${suite.served.info.token}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ user: 'alice' }),
      })
    ).json()) as { stoken: string; uidauth: string };
    const profilesPath = join(suite.home, 'vendor-profiles.pt');
    const run = spawnSync(
      'python3',
      [
        '-c',
        DRIVER,
        VENDOR!,
        suite.served.info.apiUrl,
        suite.served.info.enrollmentUrl,
        suite.served.info.keyspace,
        tokens.stoken,
        tokens.uidauth,
        profilesPath,
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(run.status, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as {
      deviceId: string;
      created: Record<string, string>;
      fetched: Record<string, { key: string; attributes: Record<string, string[]> }>;
    };
    const [id] = Object.keys(out.created);
    expect(id).toMatch(/^ABcd/);
    expect(out.fetched[id!]!.key).toBe(out.created[id!]);
    expect(out.fetched[id!]!.attributes).toEqual({
      classification: ['public'],
      'ionic-protected-test': ['secret value'],
    });

    // The vendor's persistor wrote the file, without names or times; ksctl uses it as it is.
    const persistor = ['--persistor-path', profilesPath];
    const checked = await ksctl(['profiles', 'check', out.deviceId, ...persistor]);
    expect(checked.code, checked.stderr).toBe(0);
    const modified = await ksctl(['keys', 'modify', id!, '--attr', 'stage=review', ...persistor]);
    expect(modified.code, modified.stderr).toBe(0);
    const fetched = await ksctl([
      'keys',
      'fetch',
      id!,
      '--show-secrets',
      '-o',
      'json',
      ...persistor,
    ]);
    expect(fetched.code, fetched.stderr).toBe(0);
    const [key] = JSON.parse(fetched.stdout);
    expect(key).toMatchObject({
      id,
      key: out.created[id!],
      attributes: { classification: ['public'], 'ionic-protected-test': ['secret value'] },
      mutableAttributes: { stage: ['review'] },
    });
  }, 90_000);
});
