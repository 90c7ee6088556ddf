/**
 * The device request protocol (src/client/device/) against independent implementations.
 *
 * 1. Fixed vectors, computed once with python's `cryptography` package (AESGCM) and its standard
 *    `hashlib`/`hmac`, from key IDC = bytes 0..31, KS = bytes 32..63, data key = bytes 64..95,
 *    IV = bytes 0xa0..0xaf, and the cid below: the envelope, a `csig`, a key wrapped as a create
 *    answer wraps it, a protected attribute, and the service's HMAC signature. ksctl must open
 *    and verify each. (They need nothing at test time: `openssl enc` refuses GCM, and python's
 *    standard library has no AES.)
 * 2. A live cross-check with python `cryptography` when it imports (skipped with a printed reason
 *    otherwise): python opens what ksctl seals, and ksctl opens what python seals.
 */
import { spawnSync } from 'node:child_process';
import { beforeEach, describe, expect, it } from 'vitest';
import { makeCid, parseCid } from '../../src/common/device/cid.js';
import {
  aad,
  checkAttributeSignature,
  checkServiceSignature,
  openEnvelope,
  openProtectedValues,
  protectValues,
  sealEnvelope,
  serviceSignature,
  signAttributes,
  unwrapDataKey,
  wrapDataKey,
} from '../../src/common/device/crypto.js';

const bytes = (from: number) => Buffer.from(Array.from({ length: 32 }, (_, i) => from + i));
const IDC = bytes(0);
const KS = bytes(32);
const DATA_KEY = bytes(64);
const CID = 'CID|ABcd.1.00000000-0000-4000-8000-000000000001|1763780000000|AAECAw==';
const CONTENT = '{"meta":{"hfphash":"abc"},"data":{"protection-keys":["ABcdKey0001"]}}';
const CATTRS = '{"classification":["internal"]}';

const VECTORS = {
  envelope:
    'oKGio6SlpqeoqaqrrK2ur1GBTtlsrO9MuLx315187OPqZ3lbH1YyjoA+SNJ4QUelNurEE+e8y9iNfVnNdm/clWNJhViPJ+xjhV01AdhVkNk4vKt/dTKeAeeJnqjyuGp+qGblrjw=',
  csig: 'oKGio6SlpqeoqaqrrK2ur/4tq2rjPQGFvq4sF9qzrK5jOvaJn+/IRtrFl3fICc4NA2bnljzej9oFD2hvfRzqnw==',
  createKey:
    'a0a1a2a3a4a5a6a7a8a9aaabacadaeafe8092e9789b41ad2bf1ccf06dc53584a8a36acc1c42385e021401799223ecfe3ec4a00d5c821a7096d9a1a05e80de66a',
  protected: 'oKGio6SlpqeoqaqrrK2ur/NqDbikkjm3qsMZAitIfLohQ7bsV2kxFTo=',
  hmac: 'gm7sK1bC9AnBWNTnrOc99eHJJywThxabtiC6h2+7zjI=',
};

describe('vectors from an independent implementation', () => {
  it('opens the envelope with the IDC key and the cid as AAD, and nothing else', () => {
    expect(openEnvelope(IDC, CID, VECTORS.envelope)).toEqual({
      ok: true,
      content: JSON.parse(CONTENT),
    });
    expect(openEnvelope(KS, CID, VECTORS.envelope)).toEqual({ ok: false, reason: 'not-authentic' });
    expect(openEnvelope(IDC, `${CID}x`, VECTORS.envelope).ok).toBe(false);
  });

  it('verifies a csig: SHA-256 of cattrs sealed with KS, AAD cid:ref', () => {
    expect(checkAttributeSignature(KS, aad(CID, 'docs'), CATTRS, VECTORS.csig)).toBe(true);
    expect(checkAttributeSignature(KS, aad(CID, 'other'), CATTRS, VECTORS.csig)).toBe(false);
    expect(checkAttributeSignature(KS, aad(CID, 'docs'), `${CATTRS} `, VECTORS.csig)).toBe(false);
  });

  it('unwraps a created key: hex, KS, AAD cid:ref:id:csig', () => {
    const keyAad = aad(CID, 'docs', 'ABcdKey0001', VECTORS.csig);
    expect(unwrapDataKey(KS, keyAad, VECTORS.createKey)).toEqual(DATA_KEY);
    expect(unwrapDataKey(KS, aad(CID, 'docs', 'ABcdKey0001'), VECTORS.createKey)).toBeUndefined();
  });

  it('opens a protected attribute (KS, AAD the attribute name) and checks the HMAC signature', () => {
    expect(openProtectedValues(KS, 'ionic-protected-owner', VECTORS.protected)).toEqual(['alice']);
    expect(openProtectedValues(KS, 'ionic-protected-x', VECTORS.protected)).toBeUndefined();
    expect(serviceSignature(DATA_KEY, CATTRS)).toBe(VECTORS.hmac);
    expect(checkServiceSignature(DATA_KEY, CATTRS, VECTORS.hmac)).toBe(true);
    expect(checkServiceSignature(KS, CATTRS, VECTORS.hmac)).toBe(false);
  });
});

describe('conversation ids', () => {
  it('are CID|device|epoch ms|Base64 of 4 bytes in v2.3, and parse back', () => {
    const cid = makeCid('ABcd.1.x', '2.3', 1_763_780_000_000, Buffer.from([0, 1, 2, 3]));
    expect(cid).toBe('CID|ABcd.1.x|1763780000000|AAECAw==');
    expect(parseCid(cid)).toEqual({ deviceId: 'ABcd.1.x', timeMs: 1_763_780_000_000 });
  });

  it('carry the version 2.4.0 in v2.4 (the default), and parse back', () => {
    const cid = makeCid('ABcd.1.x', '2.4', 1_763_780_000_000, Buffer.from([0, 1, 2, 3]));
    expect(cid).toBe('CID|ABcd.1.x|1763780000000|AAECAw==|2.4.0');
    expect(parseCid(cid)).toEqual({
      deviceId: 'ABcd.1.x',
      timeMs: 1_763_780_000_000,
      version: '2.4.0',
    });
    expect(makeCid('ABcd.1.x')).toMatch(/^CID\|ABcd\.1\.x\|\d{13}\|[A-Za-z0-9+/]{6}==\|2\.4\.0$/);
  });

  it.each([
    ['the Java SDK: nonce without its padding', 'CID|ABcd.1.x|1763780000000|AAECAw|2.4.0'],
    ['the JS SDK: nonce with its padding', 'CID|ABcd.1.x|1763780000000|AAECAw==|2.4.0'],
    ['a v2.3 version field', 'CID|ABcd.1.x|1763780000000|AAECAw|2.3'],
  ])('accepts %s', (_what, cid) => {
    expect(parseCid(cid)).toMatchObject({ deviceId: 'ABcd.1.x', timeMs: 1_763_780_000_000 });
  });

  it.each([
    'CID|ABcd.1.x|1763780000000',
    'cid|ABcd.1.x|1763780000000|AAECAw==',
    'CID||1763780000000|AAECAw==',
    'CID|ABcd.1.x|soon|AAECAw==',
    'CID|ABcd.1.x|1763780000000|AAECAwQ=',
    'CID|ABcd.1.x|1763780000000|AAECAw==|extra',
    'CID|ABcd.1.x|1763780000000|AAECAw==|2.5.0',
    'CID|ABcd.1.x|1763780000000|AAECAw=|2.4.0',
    'CID|ABcd.1.x|1763780000000|AAECAx|2.4.0',
    'CID|ABcd.1.x|1763780000000|AAECAw==|2.4.0|more',
  ])('refuses %s', (cid) => {
    expect(parseCid(cid)).toBeUndefined();
  });
});

const PYTHON_CROSS_CHECK = String.raw`
import base64, hashlib, hmac, json, os, sys
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
t = json.load(sys.stdin)
idc, ks, dk = (bytes.fromhex(t[k]) for k in ('idc', 'ks', 'dk'))
def open_(key, aad, blob):
    return AESGCM(key).decrypt(blob[:16], blob[16:], aad)
def seal(key, aad, pt):
    iv = os.urandom(16)
    return iv + AESGCM(key).encrypt(iv, pt, aad)
cid, ref, kid = t['cid'], t['ref'], t['id']
out = {
    'content': open_(idc, cid.encode(), base64.b64decode(t['envelope'])).decode(),
    'csigOk': open_(ks, (cid + ':' + ref).encode(), base64.b64decode(t['csig'])) == hashlib.sha256(t['cattrs'].encode()).digest(),
    'key': open_(ks, (cid + ':' + ref + ':' + kid + ':' + t['csig']).encode(), bytes.fromhex(t['wrapped'])).hex(),
    'protected': open_(ks, b'ionic-protected-owner', base64.b64decode(t['protected'])).decode(),
    'answer': base64.b64encode(seal(idc, cid.encode(), b'{"data":{"ok":true}}')).decode(),
    'fetchKey': seal(ks, (cid + ':' + kid + ':' + t['csig']).encode(), dk).hex(),
    'hmac': base64.b64encode(hmac.new(dk, t['cattrs'].encode(), hashlib.sha256).digest()).decode(),
}
print(json.dumps(out))
`;

function pythonCryptography(): string | undefined {
  const probe = spawnSync('python3', ['-c', 'import cryptography'], { encoding: 'utf8' });
  if (probe.error) return `python3 is not available (${probe.error.message})`;
  if (probe.status !== 0) return 'the python cryptography package does not import';
  return undefined;
}

const skipReason = pythonCryptography();

describe('live cross-check with python cryptography', () => {
  // The run's skip summary says why (test/helpers/skip-summary.ts).
  beforeEach((context) => {
    if (skipReason) context.skip(`the python cryptography cross-check: ${skipReason}`);
  });
  it('python opens what ksctl seals, and ksctl opens what python seals', () => {
    const cid = makeCid('ABcd.1.00000000-0000-4000-8000-000000000002');
    const content = { meta: { hfphash: 'h' }, data: { 'protection-keys': ['x'] } };
    const csig = signAttributes(KS, aad(cid, 'docs'), CATTRS);
    const input = {
      idc: IDC.toString('hex'),
      ks: KS.toString('hex'),
      dk: DATA_KEY.toString('hex'),
      cid,
      ref: 'docs',
      id: 'ABcdKey0002',
      cattrs: CATTRS,
      envelope: sealEnvelope(IDC, cid, content),
      csig,
      wrapped: wrapDataKey(KS, aad(cid, 'docs', 'ABcdKey0002', csig), DATA_KEY),
      protected: protectValues(KS, 'ionic-protected-owner', ['alice']),
    };
    const run = spawnSync('python3', ['-c', PYTHON_CROSS_CHECK], {
      input: JSON.stringify(input),
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    const out = JSON.parse(run.stdout);
    expect(JSON.parse(out.content)).toEqual(content);
    expect(out.csigOk).toBe(true);
    expect(out.key).toBe(DATA_KEY.toString('hex'));
    expect(JSON.parse(out.protected)).toEqual(['alice']);
    expect(openEnvelope(IDC, cid, out.answer)).toEqual({
      ok: true,
      content: { data: { ok: true } },
    });
    expect(unwrapDataKey(KS, aad(cid, 'ABcdKey0002', csig), out.fetchKey)).toEqual(DATA_KEY);
    expect(out.hmac).toBe(serviceSignature(DATA_KEY, CATTRS));
  });
});
