/**
 * `ksctl conformance`: the service in use against a fresh embedded mock. The service's markings
 * are read and copied into the mock as its seed, so both start alike; each scenario of the
 * catalogue then runs on the service and on the mock, and their answers are compared. With
 * `write`, the scenarios that change state run too, on markings named with the run's prefix,
 * which are deleted at the end whatever happened (a failure, Ctrl-C).
 */
import type { ApiClient } from '../api/client.js';
import { redactUrl } from '../../common/http/redact.js';
import { publicRandomBytes } from '../../common/encoding/random-pool.js';
import { InputError, isKsctlError, UnreachableError } from '../../common/errors.js';
import { HttpMarkingsApi } from '../markings/http-markings-api.js';
import { SCOPES, type Marking } from '../../common/markings/wire.js';
import { streamMarkings } from '../apply/current.js';
import { isKeyspace } from '../../common/enrollment/keyspace.js';
import { type Seed, type SeedMarking, servedWithoutSeed } from '../usecases/mock.js';
import { CATALOGUE } from './catalogue.js';
import { compareAnswers } from './compare.js';
import { type Reference, startReference } from './reference.js';
import {
  compared,
  type ConformanceReport,
  type LeftBehind,
  type ScenarioResult,
  skipped,
  summarize,
} from './report.js';
import type { HeldMarking, Scenario, ScenarioContext } from './scenario.js';
import { NotPrepared, Side, type SideAnswer, type SideEndpoints } from './side.js';

export interface ConformanceOptions {
  /** The service, with the user's credentials. */
  client: ApiClient;
  /** The service, with a token it cannot know. */
  stranger: ApiClient;
  endpoints: SideEndpoints;
  /** The token's scopes when the service says (token introspection). */
  scopes?: readonly string[];
  /** Run the scenarios that change state too. */
  write: boolean;
  /** The scenarios to run (default: the catalogue). */
  catalogue?: readonly Scenario[];
  timeoutMs: number;
  signal?: AbortSignal;
  /** Told what the run is doing, a line at a time. */
  progress?: (text: string) => void;
  /** Told as each scenario starts: how many went before, of how many. */
  onScenario?: (started: number, total: number, name: string) => void;
}

/** The prefix of a run's markings: `ksctl-conformance-<8 hex>-`. */
export function runPrefix(): string {
  return `ksctl-conformance-${publicRandomBytes(4).toString('hex')}-`;
}

const heldOf = (m: Marking): HeldMarking => ({
  name: m.name,
  description: m.detail.description,
  public: m.public,
  adminOnly: m.adminOnly,
  defaultValue: m.defaultValue ?? null,
  values: (m.detail.values ?? []).map((v) => v.name),
});

/** A marking as the mock's seed takes it: what the API lets a client set. */
export function seedMarkingOf(m: Marking): SeedMarking {
  return {
    name: m.name,
    ...(m.detail.description === undefined ? {} : { description: m.detail.description }),
    public: m.public,
    adminOnly: m.adminOnly,
    defaultValue: m.defaultValue ?? null,
    values: (m.detail.values ?? []).map((v) =>
      v.description === undefined ? v.name : { name: v.name, description: v.description },
    ),
  };
}

/** May these credentials read? A 401 or 403 here ends the run (exit 4), before anything starts. */
async function probe(client: ApiClient, signal?: AbortSignal): Promise<void> {
  await client.request('GET', '/markings', {
    query: { limit: 1, valueLimit: 0 },
    what: 'list markings',
    signal,
  });
}

async function readHeld(
  client: ApiClient,
  progress: ((text: string) => void) | undefined,
  signal: AbortSignal | undefined,
): Promise<{ held: HeldMarking[]; seed: SeedMarking[] }> {
  const held: HeldMarking[] = [];
  const seed: SeedMarking[] = [];
  const api = new HttpMarkingsApi(client);
  for await (const marking of streamMarkings(api, { withValues: () => true, signal })) {
    held.push(heldOf(marking));
    seed.push(seedMarkingOf(marking));
    if (held.length % 1000 === 0) progress?.(`read ${held.length} markings of the service`);
  }
  return { held, seed };
}

/** One scenario on one side: its answer, or why it could not run there. */
async function runOn(
  scenario: Scenario,
  c: ScenarioContext,
): Promise<SideAnswer | { notPrepared: string }> {
  try {
    return await c.side.send(await scenario.run(c));
  } catch (error) {
    if (error instanceof NotPrepared) return { notPrepared: error.message };
    // An answer that could not be read whole (too large, cut short) says nothing comparable; no
    // answer at all ends the run (exit 7), as with every network command.
    if (isKsctlError(error) && !(error instanceof UnreachableError) && !c.side.aborted) {
      return {
        notPrepared: `the ${c.side.name === 'target' ? 'service' : 'mock'}'s answer could not be read: ${error.message}`,
      };
    }
    throw error;
  }
}

async function runScenario(
  scenario: Scenario,
  sides: { target: Side; mock: Side },
  context: Omit<ScenarioContext, 'side'>,
): Promise<ScenarioResult> {
  const target = await runOn(scenario, { ...context, side: sides.target });
  if ('notPrepared' in target) return skipped(scenario.name, target.notPrepared);
  if (target.status === 403 && scenario.forbidden !== true) {
    return skipped(
      scenario.name,
      'the service forbids it (403): the token lacks a scope it needs',
      target.shown,
    );
  }
  const mock = await runOn(scenario, { ...context, side: sides.mock });
  if ('notPrepared' in mock) return skipped(scenario.name, mock.notPrepared, target.shown);
  return compared(scenario.name, target.shown, compareAnswers(target, mock), {
    target: target.status,
    mock: mock.status,
  });
}

/**
 * Deletes the run's markings on the service: those it refused are returned, each with the
 * command that removes it. Runs whatever happened before, so it takes no signal.
 */
async function cleanUp(client: ApiClient, prefix: string): Promise<LeftBehind[]> {
  const left: LeftBehind[] = [];
  const api = new HttpMarkingsApi(client);
  const found: Marking[] = [];
  try {
    for await (const m of api.listMarkings({ name__startswith: prefix, valueLimit: 0 })) {
      found.push(m);
    }
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return [
      {
        name: `${prefix}*`,
        reason,
        command: `ksctl markings list --filter name__startswith=${prefix}`,
      },
    ];
  }
  for (const m of found) {
    const answer = await client
      .request('DELETE', `/markings/${m.id}`, {
        okStatuses: [404],
        what: `delete marking ${m.name}`,
      })
      .then(
        () => undefined,
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
    if (answer !== undefined) {
      left.push({ name: m.name, reason: answer, command: `ksctl markings delete ${m.name} --yes` });
    }
  }
  return left;
}

/** The scenarios one after another, until the last or Ctrl-C. */
async function runCatalogue(
  catalogue: readonly Scenario[],
  sides: { target: Side; mock: Side },
  context: Omit<ScenarioContext, 'side'>,
  options: ConformanceOptions,
): Promise<{ results: ScenarioResult[]; interrupted: boolean }> {
  const results: ScenarioResult[] = [];
  for (const [index, scenario] of catalogue.entries()) {
    if (options.signal?.aborted) return { results, interrupted: true };
    options.onScenario?.(index, catalogue.length, scenario.name);
    try {
      results.push(await runScenario(scenario, sides, context));
    } catch (error) {
      if (options.signal?.aborted) return { results, interrupted: true };
      throw error;
    }
  }
  return { results, interrupted: false };
}

/** The reference mock, started with the service's markings, keyspace and token scopes. */
function startLikeService(
  seed: SeedMarking[],
  scopes: readonly string[] | undefined,
  options: ConformanceOptions,
): Promise<Reference> {
  const keyspace = options.endpoints.keyspace;
  const mockSeed: Seed = {
    markings: seed,
    ...(keyspace !== undefined && isKeyspace(keyspace) && !servedWithoutSeed(keyspace)
      ? { keyspaces: [{ id: keyspace }] }
      : {}),
  };
  return startReference({
    seed: mockSeed,
    scopes,
    keyspace,
    needsKeyServerKey: keyspace !== undefined && options.endpoints.enrollmentUrl !== undefined,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
  }).catch((error: unknown) => {
    // A marking the service holds that the mock's rules refuse: say whose markings they are.
    if (error instanceof InputError) {
      throw new InputError(
        `the markings of the service cannot be given to the mock: ${error.message}`,
        {
          hint: 'the mock refuses what the markings-file rules refuse; report the marking if the service is right to hold it',
          cause: error,
        },
      );
    }
    throw error;
  });
}

export async function runConformance(options: ConformanceOptions): Promise<ConformanceReport> {
  const { client, signal, progress } = options;
  await probe(client, signal);
  progress?.('reading the markings of the service, to start the mock with the same');
  const { held, seed } = await readHeld(client, progress, signal);
  const catalogue = (options.catalogue ?? CATALOGUE).filter((s) => options.write || !s.writes);
  const scopes = options.scopes?.filter((s) => (SCOPES as readonly string[]).includes(s));
  progress?.(`starting the mock with the ${held.length} markings of the service`);
  const reference = await startLikeService(seed, scopes, options);
  const target = new Side('target', client, options.stranger, options.endpoints, signal);
  const prefix = options.write ? runPrefix() : undefined;
  const context = {
    held,
    scopes,
    name: (word: string) => {
      if (prefix === undefined) throw new Error('a read-only scenario asked for a name of its own');
      return `${prefix}${word}`;
    },
  };
  let outcome: { results: ScenarioResult[]; interrupted: boolean } | undefined;
  let leftBehind: LeftBehind[] | undefined;
  try {
    outcome = await runCatalogue(catalogue, { target, mock: reference.side }, context, options);
  } finally {
    if (prefix !== undefined) {
      progress?.(`deleting the markings of the run (${prefix}*) on the service`);
      leftBehind = await cleanUp(client, prefix).catch((error: unknown) => [
        {
          name: `${prefix}*`,
          reason: error instanceof Error ? error.message : String(error),
          command: `ksctl markings list --filter name__startswith=${prefix}`,
        },
      ]);
    }
    await reference.close();
  }
  return summarize(outcome.results, {
    target: redactUrl(client.baseUrl ?? ''),
    mode: options.write ? 'write' : 'read-only',
    ...(prefix === undefined ? {} : { prefix, leftBehind }),
    ...(outcome.interrupted ? { interrupted: true } : {}),
  });
}
