import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { makeAuth, splitAuth } from '../../src/common/enrollment/auth.js';
import {
  mintTokenPair,
  TOKEN_TTL_MS_DEFAULT,
  verifyTokenPair,
} from '../../src/mock/model/enrollment/tokens.js';

const SECRET = 'portal secret for tests';
const NOW = Date.UTC(2030, 0, 1, 12, 0, 0);

function mint(overrides: { uid?: string; ttlMs?: number } = { uid: 'alice' }) {
  return mintTokenPair({ secret: SECRET, tenant: 't1', keyspace: 'ABcd', now: NOW, ...overrides });
}

/** A UIDAUTH whose claims part is `claimsPart`, correctly signed for `stoken`. */
function signedUidauth(claimsPart: string, stoken: string, secret = SECRET): string {
  const mac = createHmac('sha256', secret).update(`${claimsPart}|${stoken}`).digest('base64url');
  return `,I${claimsPart}.${mac}`;
}

function claimsPartOf(uidauth: string): string {
  return uidauth.slice(2).split('.')[0] ?? '';
}

describe('mintTokenPair', () => {
  it('mints the shapes of docs/design.md 2.2 with the claims asked for', () => {
    const pair = mint();
    expect(pair.stoken).toMatch(/^I\.[A-Za-z0-9_-]{22}$/);
    expect(pair.uidauth).toMatch(/^,I[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    const claims = JSON.parse(Buffer.from(claimsPartOf(pair.uidauth), 'base64url').toString());
    expect(claims).toMatchObject({ uid: 'alice', tenant: 't1', keyspace: 'ABcd' });
    expect(claims.exp - claims.iat).toBe(TOKEN_TTL_MS_DEFAULT / 1000);
    expect(claims.iat).toBe(NOW / 1000);
    expect(claims.jti).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('mints a different pair every time', () => {
    const [a, b] = [mint(), mint()];
    expect(a.stoken).not.toBe(b.stoken);
    expect(a.uidauth).not.toBe(b.uidauth);
  });
});

describe('verifyTokenPair', () => {
  it('accepts a fresh pair and returns its claims', () => {
    const pair = mint();
    const result = verifyTokenPair(pair.stoken, pair.uidauth, SECRET, NOW + 1000);
    expect(result).toMatchObject({
      ok: true,
      claims: { uid: 'alice', tenant: 't1', keyspace: 'ABcd' },
    });
  });

  it('accepts the pair after a round trip through AUTH, with one comma or two', () => {
    const pair = mint();
    const withoutComma = splitAuth(makeAuth(pair.stoken, pair.uidauth.slice(1)));
    const twoCommas = splitAuth(
      Buffer.from(`${pair.stoken},${pair.uidauth}`, 'utf8').toString('base64'),
    );
    for (const split of [withoutComma, twoCommas]) {
      expect(split).toEqual(pair);
      expect(verifyTokenPair(split?.stoken ?? '', split?.uidauth ?? '', SECRET, NOW).ok).toBe(true);
    }
  });

  it('rejects another pair’s STOKEN (40105): the signature binds the two', () => {
    const [a, b] = [mint(), mint()];
    expect(verifyTokenPair(b.stoken, a.uidauth, SECRET, NOW)).toEqual({ ok: false, code: 40105 });
  });

  it('rejects tampered claims (40105)', () => {
    const pair = mint();
    const claims = JSON.parse(Buffer.from(claimsPartOf(pair.uidauth), 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, uid: 'mallory' })).toString('base64url');
    const tampered = pair.uidauth.replace(claimsPartOf(pair.uidauth), forged);
    expect(verifyTokenPair(pair.stoken, tampered, SECRET, NOW)).toEqual({ ok: false, code: 40105 });
  });

  it('rejects a pair signed with another portal secret (40105)', () => {
    const pair = mint();
    expect(verifyTokenPair(pair.stoken, pair.uidauth, 'other', NOW)).toEqual({
      ok: false,
      code: 40105,
    });
  });

  it('rejects an expired pair (40105) and accepts it until then', () => {
    const pair = mint({ uid: 'alice', ttlMs: 60_000 });
    expect(verifyTokenPair(pair.stoken, pair.uidauth, SECRET, NOW + 59_999).ok).toBe(true);
    expect(verifyTokenPair(pair.stoken, pair.uidauth, SECRET, NOW + 60_000)).toEqual({
      ok: false,
      code: 40105,
    });
  });

  it('reports claims without a uid as 45102', () => {
    const pair = mint({});
    expect(verifyTokenPair(pair.stoken, pair.uidauth, SECRET, NOW)).toEqual({
      ok: false,
      code: 45102,
    });
  });

  it('treats garbage claims with a wrong signature as incorrect (40105), not undecodable', () => {
    const pair = mint();
    const garbage = Buffer.from('not json').toString('base64url');
    const uidauth = pair.uidauth.replace(claimsPartOf(pair.uidauth), garbage);
    expect(verifyTokenPair(pair.stoken, uidauth, SECRET, NOW)).toEqual({ ok: false, code: 40105 });
  });

  it('treats correctly signed claims that do not decode as undecodable (40008)', () => {
    const stoken = mint().stoken;
    for (const claims of ['not json', '[1]', '{"uid":"a"}']) {
      const part = Buffer.from(claims).toString('base64url');
      expect(verifyTokenPair(stoken, signedUidauth(part, stoken), SECRET, NOW)).toEqual({
        ok: false,
        code: 40008,
      });
    }
  });

  it.each([
    ['a STOKEN without its I. prefix', (p: { stoken: string }) => p.stoken.slice(2), undefined],
    ['an empty STOKEN body', () => 'I.', undefined],
    ['a UIDAUTH without its ,I prefix', undefined, (u: string) => u.slice(2)],
    ['a UIDAUTH without its dot', undefined, (u: string) => u.replace('.', '')],
    ['a UIDAUTH with two dots', undefined, (u: string) => `${u}.x`],
    ['a truncated signature part', undefined, (u: string) => u.slice(0, -4)],
    ['a signature part that is not base64url', undefined, (u: string) => `${u.slice(0, -1)}+`],
    ['an empty claims part', undefined, (u: string) => `,I${u.slice(u.indexOf('.'))}`],
  ])('reports %s as undecodable (40008)', (_label, stokenOf, uidauthOf) => {
    const pair = mint();
    const stoken = stokenOf ? stokenOf(pair) : pair.stoken;
    const uidauth = uidauthOf ? uidauthOf(pair.uidauth) : pair.uidauth;
    expect(verifyTokenPair(stoken, uidauth, SECRET, NOW)).toEqual({ ok: false, code: 40008 });
  });
});
