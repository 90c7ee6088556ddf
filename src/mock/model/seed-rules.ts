/**
 * What a seed may hold (`mock serve --seed`, `startMock({ seed })`), checked before anything is
 * made: every key known, every member of the type it needs, and each marking by the rules of a
 * markings file, in the same words (apply/file-rules.ts). A key the mock does not know is an
 * error, never skipped: a marking's `vales:` or `detail:` would otherwise start a mock without
 * the values the user meant, and `enabled: "no"` would enable a user.
 */
import {
  checkMarking,
  found,
  plainTree,
  unknownKeyWords,
} from '../../common/markings/file-rules.js';
import { InputError } from '../../common/errors.js';

type Member = 'text' | 'boolean' | 'list';

/** The members of each list's entries; the first one named is required. */
const ENTRIES: Record<string, Record<string, Member>> = {
  tenants: { id: 'text', markings: 'list' },
  keyspaces: { id: 'text', tenant: 'text', enrollment: 'boolean', online: 'boolean' },
  users: { name: 'text', tenant: 'text', enabled: 'boolean', password: 'text', email: 'text' },
};

/** Tokens name a token, or a username and password; seed.ts says which it needs. */
const TOKEN: Record<string, Member> = {
  token: 'text',
  username: 'text',
  password: 'text',
  name: 'text',
  scopes: 'list',
  admin: 'boolean',
  tenant: 'text',
};

const TOP: Record<string, Member> = {
  markings: 'list',
  tenants: 'list',
  keyspaces: 'list',
  users: 'list',
  tokens: 'list',
  faults: 'list',
  justInTimeUsers: 'boolean',
};

const tree = plainTree();

const isMapping = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function memberProblem(value: unknown, member: Member): string | undefined {
  const kind = tree.kind(value);
  if (member === 'text' && kind !== 'text') return `must be text, ${found(tree, value, true)}`;
  if (member === 'boolean' && kind !== 'boolean') {
    return `must be true or false, ${found(tree, value)}`;
  }
  if (member === 'list' && kind !== 'list') return `must be a list, ${found(tree, value)}`;
  return undefined;
}

/** `where` and what is wrong there; the seed itself is `''` and goes unnamed. */
const at = (where: string, problem: string) => (where === '' ? problem : `${where}: ${problem}`);
const member = (where: string, key: string) => (where === '' ? key : `${where}.${key}`);

/** The first problem of a mapping's keys and members, `where` naming it ("users[0]"). */
function mappingProblem(
  value: unknown,
  members: Record<string, Member>,
  where: string,
  required?: string,
): string | undefined {
  if (!isMapping(value)) return `${where} must be a mapping, ${found(tree, value)}`;
  const allowed = Object.keys(members);
  for (const key of Object.keys(value)) {
    const kind = members[key];
    if (kind === undefined) return at(where, unknownKeyWords(key, allowed));
    const problem = memberProblem(value[key], kind);
    if (problem) return `${member(where, key)} ${problem}`;
  }
  if (required !== undefined && value[required] === undefined) {
    return `${where} has no ${required}`;
  }
  return undefined;
}

/** The first problem of a list of markings, by the markings-file rules. */
function markingsProblem(markings: unknown[], where: string): string | undefined {
  for (const [i, entry] of markings.entries()) {
    let first: string | undefined;
    checkMarking(
      tree,
      entry,
      () => ({ file: where, line: 0, column: 0 }),
      (place, reason) => (first ??= `${where}[${i}]${place.path}: ${reason}`),
    );
    if (first !== undefined) return first;
  }
  return undefined;
}

/** Throws an InputError naming the first thing in `raw` that is not a seed's. */
export function checkSeed(raw: Record<string, unknown>, where: string): void {
  const problem = seedProblem(raw);
  if (problem !== undefined) {
    throw new InputError(`${where}: ${problem}`);
  }
}

function seedProblem(raw: Record<string, unknown>): string | undefined {
  const top = mappingProblem(raw, TOP, '');
  if (top !== undefined) return top;
  const lists = raw as Record<string, unknown[] | undefined>;
  const markings = markingsProblem(lists.markings ?? [], 'markings');
  if (markings !== undefined) return markings;
  for (const [name, members] of Object.entries(ENTRIES)) {
    for (const [i, entry] of (lists[name] ?? []).entries()) {
      const problem = mappingProblem(entry, members, `${name}[${i}]`, Object.keys(members)[0]);
      if (problem !== undefined) return problem;
      if (name === 'tenants') {
        const own = (entry as { markings?: unknown[] }).markings ?? [];
        const inTenant = markingsProblem(own, `tenants[${i}].markings`);
        if (inTenant !== undefined) return inTenant;
      }
    }
  }
  for (const [i, entry] of (lists.tokens ?? []).entries()) {
    const problem = mappingProblem(entry, TOKEN, `tokens[${i}]`);
    if (problem !== undefined) return problem;
    const scopes = (entry as { scopes?: unknown[] }).scopes ?? [];
    const notText = scopes.findIndex((s) => typeof s !== 'string');
    if (notText >= 0) {
      return `tokens[${i}].scopes[${notText}] must be text, ${found(tree, scopes[notText])}`;
    }
  }
  return undefined;
}
