/**
 * The mock's start-up state: the defaults every mock has (zero configuration) and a seed file's
 * tenants, markings, keyspaces, users, tokens and faults on top.
 */
import { SCOPES, type Scope } from '../../common/markings/wire.js';
import type { FaultRule } from '../../common/mock/wire.js';
import { InputError, isKsctlError } from '../../common/errors.js';
import { INPUT_MAX_MIB, type ReadLimit, readBoundedFile } from '../../common/files/bounded-read.js';
import { nodeBudget, parseJsonWithin } from '../../common/files/node-budget.js';
import { faultRuleProblem } from './admin/faults.js';
import { checkSeed } from './seed-rules.js';
import { DEFAULT_KEYSPACE, DEFAULT_TENANT, type MockState } from './state.js';
import { fileReason } from '../../common/files/fs-errors.js';

/** A marking in a seed file: the same shape as `markings apply` files. */
export interface SeedMarking {
  name: string;
  description?: string;
  public?: boolean;
  adminOnly?: boolean;
  defaultValue?: string | null;
  values?: (string | { name: string; description?: string })[];
}

export interface Seed {
  /** Markings of the default tenant. */
  markings?: SeedMarking[];
  tenants?: { id: string; markings?: SeedMarking[] }[];
  keyspaces?: { id: string; tenant?: string; enrollment?: boolean; online?: boolean }[];
  users?: { name: string; tenant?: string; enabled?: boolean; password?: string; email?: string }[];
  tokens?: {
    token?: string;
    username?: string;
    password?: string;
    name?: string;
    scopes?: (Scope | '*')[];
    admin?: boolean;
    tenant?: string;
  }[];
  faults?: FaultRule[];
  justInTimeUsers?: boolean;
}

/** A seed file: a regular file within `limit` (64 MiB unless the command says more). */
export async function readSeedFile(
  path: string,
  limit: ReadLimit = { bytes: INPUT_MAX_MIB * 1024 * 1024, what: 'seed file' },
): Promise<Seed> {
  let text: string;
  try {
    text = (await readBoundedFile(path, limit)).toString('utf8');
  } catch (error) {
    if (isKsctlError(error)) throw error;
    throw new InputError(`cannot read seed file ${path}: ${fileReason(error)}`);
  }
  let raw: unknown;
  // Within the node budget of the cap: 64 MiB of `- a` would otherwise take gigabytes.
  const budget = nodeBudget(limit);
  try {
    if (path.endsWith('.json')) {
      raw = parseJsonWithin(text, path, budget);
    } else {
      const { loadYamlWithin } = await import('../../common/files/yaml-within.js');
      raw = loadYamlWithin(text, path, budget);
    }
  } catch (error) {
    if (isKsctlError(error)) throw error;
    throw new InputError(`seed file ${path} does not parse: ${(error as Error).message}`);
  }
  return seedFrom(raw, `seed file ${path}`);
}

/**
 * A seed given as data (a file's contents, or the `seed` of `startMock()`), checked whole before
 * anything is made (seed-rules.ts); what only the state can tell is checked as it is applied.
 */
export function seedFrom(raw: unknown, where = 'the seed'): Seed {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new InputError(`${where} must hold an object`);
  }
  checkSeed(raw as Record<string, unknown>, where);
  return raw as Seed;
}

function toMarkingBody(m: SeedMarking) {
  return {
    name: m.name,
    public: m.public,
    adminOnly: m.adminOnly,
    defaultValue: m.defaultValue,
    detail: {
      description: m.description,
      values: m.values?.map((v) => (typeof v === 'string' ? { name: v } : v)),
    },
  };
}

/** Loads a seed into a fresh state; invalid entries are errors naming where they are. */
export function applySeed(state: MockState, seed: Seed): void {
  const seeder = { name: 'seed' };
  const addMarkings = (tenantId: string, markings: SeedMarking[] | undefined, where: string) => {
    const tenant = state.addTenant(tenantId);
    markings?.forEach((m, i) => {
      try {
        tenant.markings.create(toMarkingBody(m), seeder);
      } catch (error) {
        throw new InputError(`seed ${where}[${i}] (${m.name}): ${(error as Error).message}`);
      }
    });
  };
  addMarkings(state.defaultTenant, seed.markings, 'markings');
  for (const t of seed.tenants ?? []) addMarkings(t.id, t.markings, `tenants.${t.id}.markings`);
  for (const k of seed.keyspaces ?? []) {
    if (!/^[A-Za-z0-9]{4}$/.test(k.id))
      throw new InputError(`seed keyspace "${k.id}" is not 4 letters or digits`);
    state.keyspaces.set(k.id, {
      id: k.id,
      tenant: k.tenant ?? state.defaultTenant,
      enrollment: k.enrollment ?? true,
      online: k.online ?? true,
    });
    state.addTenant(k.tenant ?? state.defaultTenant);
  }
  for (const u of seed.users ?? []) {
    state.users.set(u.name, {
      name: u.name,
      tenant: u.tenant ?? state.defaultTenant,
      enabled: u.enabled ?? true,
      password: u.password,
      email: u.email,
    });
  }
  seed.tokens?.forEach((t, i) => {
    const scopes = (t.scopes ?? ['*']).flatMap((s) => (s === '*' ? [...SCOPES] : [s]));
    const bad = scopes.find((s) => !(SCOPES as readonly string[]).includes(s));
    if (bad)
      throw new InputError(`seed tokens[${i}]: unknown scope "${bad}"`, {
        hint: `scopes: ${SCOPES.join(', ')}`,
      });
    const principal = {
      name: t.name ?? t.username ?? `token-${i}`,
      scopes: new Set(scopes as Scope[]),
      admin: t.admin ?? false,
      tenant: t.tenant,
    };
    if (t.token) state.bearer.set(t.token, principal);
    else if (t.username && t.password) state.basic.set(`${t.username}:${t.password}`, principal);
    else throw new InputError(`seed tokens[${i}] needs a token, or a username and password`);
  });
  seed.faults?.forEach((f, i) => {
    const problem = faultRuleProblem(f);
    if (problem) throw new InputError(`seed faults[${i}]: ${problem}`);
  });
  if (seed.faults) state.faults.replace(seed.faults);
  if (seed.justInTimeUsers !== undefined) state.justInTimeUsers = seed.justInTimeUsers;
}

const DOCUMENTED_PASSWORDS = { alice: 'alice-password', bob: 'bob-password' };

/**
 * Zero configuration: a tenant, keyspace ABcd, alice (enabled) and bob (disabled), with their
 * documented passwords unless `passwords` gives others (a mock that listens beyond this machine).
 */
export function loadDefaults(
  state: MockState,
  seed: Seed | undefined,
  passwords: { alice: string; bob: string } = DOCUMENTED_PASSWORDS,
): void {
  state.addTenant(DEFAULT_TENANT);
  state.keyspaces.set(DEFAULT_KEYSPACE, {
    id: DEFAULT_KEYSPACE,
    tenant: DEFAULT_TENANT,
    enrollment: true,
    online: true,
  });
  state.users.set('alice', {
    name: 'alice',
    tenant: DEFAULT_TENANT,
    enabled: true,
    password: passwords.alice,
    email: 'alice@example.com',
  });
  state.users.set('bob', {
    name: 'bob',
    tenant: DEFAULT_TENANT,
    enabled: false,
    password: passwords.bob,
    email: 'bob@example.com',
  });
  if (seed) applySeed(state, seed);
}
