/**
 * A seed says what the mock starts with, so nothing in it may be skipped: a key the mock does not
 * know, or a member of the wrong type, is an error naming where it is, before anything is made
 * (seed-rules.ts). Markings follow the rules of a markings file (apply-file-rules.test.ts checks
 * the words are the same).
 */
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import { seedFrom } from '../../src/mock/model/seed.js';
import { MockState } from '../../src/mock/model/state.js';
import { loadDefaults } from '../../src/mock/model/seed.js';

const refused = (seed: unknown): string => {
  try {
    seedFrom(seed, 'seed file s.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return (error as InputError).message;
  }
  throw new Error(`accepted: ${JSON.stringify(seed)}`);
};

describe('a seed', () => {
  it.each([
    // What used to start a mock without what the user meant.
    [
      { markings: [{ name: 'a', detail: { values: ['x'] } }] },
      'markings[0]: unknown key "detail" in marking "a" (allowed: name, description, public, adminOnly, defaultValue, values)',
    ],
    [
      { markings: [{ name: 'b', vales: ['x'] }] },
      'markings[0]: unknown key "vales" in marking "b" (did you mean "values"?)',
    ],
    [
      { users: [{ name: 'u', enabled: 'no' }] },
      'users[0].enabled must be true or false, found the text "no"',
    ],
    [
      { users: [{ name: 'u', passwrd: 'p' }] },
      'users[0]: unknown key "passwrd" (did you mean "password"?)',
    ],
    [
      { keyspaces: [{ id: 'ABCD', enrolment: false }] },
      'keyspaces[0]: unknown key "enrolment" (did you mean "enrollment"?)',
    ],
    [
      { keyspaces: [{ id: 'ABCD', online: 'false' }] },
      'keyspaces[0].online must be true or false, found the text "false"',
    ],
    [
      { tokens: [{ token: 't', admn: true }] },
      'tokens[0]: unknown key "admn" (did you mean "admin"?)',
    ],
    [
      { tokens: [{ token: 't', scopes: ['markings:read', 3] }] },
      'tokens[0].scopes[1] must be text, found the number 3',
    ],
    [
      { tokens: [{ token: 7 }] },
      'tokens[0].token must be text, found the number 7 (quote it, "7", to use it as text)',
    ],
    [
      { tenants: [{ id: 't2', markings: [{ name: 1001 }] }] },
      'tenants[0].markings[0].name: marking name must be text, found the number 1001 (quote it, "1001", to use it as text)',
    ],
    [{ tenants: [{ markings: [] }] }, 'tenants[0] has no id'],
    [{ users: [{ enabled: true }] }, 'users[0] has no name'],
    [{ users: ['alice'] }, 'users[0] must be a mapping, found the text "alice"'],
    [{ markingz: [] }, 'unknown key "markingz" (did you mean "markings"?)'],
    [{ markings: {} }, 'markings must be a list, found a mapping'],
    [{ justInTimeUsers: 'yes' }, 'justInTimeUsers must be true or false, found the text "yes"'],
  ])('%j is refused: %s', (seed, words) => {
    expect(refused(seed)).toBe(`seed file s.yaml: ${words}`);
  });

  it('that keeps every rule starts the mock with all of it', () => {
    const seed = seedFrom({
      markings: [{ name: 'ok', values: ['a', { name: 'b', description: 'd' }], defaultValue: 'a' }],
      tenants: [{ id: 'other', markings: [{ name: 'm', public: true }] }],
      keyspaces: [{ id: 'WXyz', tenant: 'other', enrollment: false, online: true }],
      users: [{ name: 'carol', enabled: false, password: 'pw', email: 'c@example.com' }],
      tokens: [{ token: 'tok', scopes: ['markings:read'], admin: false, name: 'reader' }],
      faults: [{ path: '/v2/*', status: 503, times: 1 }],
      justInTimeUsers: true,
    });
    const state = new MockState('ksdev.test');
    loadDefaults(state, seed);
    const ok = state.tenant(state.defaultTenant)!.markings;
    expect(ok.size).toBe(1);
    expect(ok.valueCount).toBe(2);
    expect(state.tenant('other')?.markings.size).toBe(1);
    expect(state.keyspaces.get('WXyz')).toMatchObject({ tenant: 'other', enrollment: false });
    expect(state.users.get('carol')).toMatchObject({ enabled: false, email: 'c@example.com' });
    expect([...state.bearer.get('tok')!.scopes]).toEqual(['markings:read']);
    expect(state.faults.list()).toHaveLength(1);
    expect(state.justInTimeUsers).toBe(true);
  });
});
