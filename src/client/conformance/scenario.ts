/**
 * What a conformance scenario is and what it is given: the side it runs on, the markings the
 * starting state holds (the same on both sides), the names of the run's own markings and the
 * token's scopes. The scenarios themselves are the one list in catalogue.ts.
 */
import { NotPrepared, type SentRequest, type Side } from './side.js';

/** A marking of the starting state, as the scenarios choose their subjects from it. */
export interface HeldMarking {
  name: string;
  description?: string;
  public: boolean;
  adminOnly: boolean;
  defaultValue: string | null;
  /** Value names, in name order. */
  values: string[];
}

export interface ScenarioContext {
  side: Side;
  /** The starting state's markings in name order (the tenant's, copied into the mock). */
  held: readonly HeldMarking[];
  /** A name of the run's own: `ksctl-conformance-<random>-<word>` (write scenarios only). */
  name(word: string): string;
  /** The token's scopes on the service, when it says; the mock's token has the same. */
  scopes: readonly string[] | undefined;
}

export interface Scenario {
  name: string;
  /** Changes state: run only with --write, on markings of the run's own. */
  writes?: boolean;
  /** The answer expected is a 403, so a 403 from the service is compared, not skipped. */
  forbidden?: boolean;
  /**
   * Prepares what the request needs on `c.side` (write scenarios create it) and gives the request
   * to compare. Throws NotPrepared, with the reason, when it cannot run there.
   */
  run(c: ScenarioContext): Promise<SentRequest>;
}

/** The first held marking that `fits`, or the scenario cannot run: `what` says what it needed. */
export function heldMarking(
  c: ScenarioContext,
  what: string,
  fits: (m: HeldMarking) => boolean = () => true,
): HeldMarking {
  const found = c.held.find(fits);
  if (found === undefined) {
    throw new NotPrepared(`the service holds no ${what} (--write runs on markings of its own)`);
  }
  return found;
}

/** The names of the held markings, in order, or the scenario cannot run: it needs two at least. */
export function heldNames(c: ScenarioContext): string[] {
  const names = c.held.map((m) => m.name);
  if (names.length < 2) throw new NotPrepared('the service holds fewer than two markings');
  return names;
}

/** A piece of a name to filter by: its middle, or all of it when it is short. */
export function middleOf(name: string): string {
  if (name.length <= 3) return name;
  const start = Math.floor(name.length / 3);
  return name.slice(start, start + Math.max(1, Math.floor(name.length / 3)));
}
