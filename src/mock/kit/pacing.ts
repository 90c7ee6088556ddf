/**
 * Long work in slices (docs/design.md 2.4 and 3.2.1, issue 17). The mock answers on one thread,
 * so a request that computes for a long time holds every other client, `/_mock/health` included.
 * Work that may run long (a fetch's scan of a tenant's keys, making and sealing thousands of keys,
 * a marking of 100,000 values, a large answer's text) asks `due()` between units and, when the
 * slice is used up, awaits `pause()`: the event loop answers what waits meanwhile, and the work
 * goes on where it stopped. Work that also runs where nothing may wait (the markings store) is
 * written as Steps instead, run whole or paced.
 */

/** How long one slice of work may hold the thread. */
const SLICE_MS = 8;

/**
 * The longest a slice may grow to after a long turn of the others: however slow their turns,
 * health checks wait for at most this much of the work in progress.
 */
const SLICE_MAX_MS = 50;

/** Units done between two looks at the clock: a look costs more than a cheap unit. */
const UNITS_PER_LOOK = 32;

/**
 * Work that gave way, waiting for its next slice, first come first served. One slice runs per turn
 * of the event loop, whichever work it is: with eight requests each doing long work, each resumed
 * in the same turn, health checks waited for eight slices (hundreds of milliseconds, issue 34);
 * in turns they wait for one.
 */
const waiting: (() => void)[] = [];
let turnScheduled = false;
/** When work last gave way: the end of the last slice, where the others' time begins. */
let lastGaveWay = 0;
/** How long the others held the thread between the last slice and this one. */
let othersMs = 0;

function nextTurn(): void {
  othersMs = performance.now() - lastGaveWay;
  waiting.shift()?.();
  // Scheduled from within the check phase, the next slice runs in the next turn of the loop,
  // after the I/O that waits (what was resumed runs once this returns).
  if (waiting.length > 0) setImmediate(nextTurn);
  else turnScheduled = false;
}

/** Lets the event loop answer what waits (requests that arrived meanwhile are read first). */
function giveWay(): Promise<void> {
  lastGaveWay = performance.now();
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!turnScheduled) {
      turnScheduled = true;
      setImmediate(nextTurn);
    }
  });
}

export class Pacer {
  /**
   * New work while other work waits for its turn starts with its slice used up: it waits its
   * turn at its first look at the clock, as the others do. Eight requests that each began a
   * slice of their own as they came in held health checks for eight slices (issue 34).
   */
  private sliceStart = turnScheduled ? -Infinity : performance.now();
  private units = 0;
  /**
   * This slice's length: SLICE_MS, or as long as the others held the thread before it (up to
   * SLICE_MAX_MS; the slices of other work count as no one's). So the work in progress has its
   * share of each turn and ends in a bounded number of turns whatever the other clients do: a
   * client that never pauses (health checks one after the other, on a machine whose cores are
   * busy) no longer leaves it a sliver of each turn (issue 34).
   */
  private slice: number;
  /** Pauses so far: how often the work gave way. */
  pauses = 0;

  /** `mostSliceMs`: how long a slice may grow to after a long turn of the others. */
  constructor(
    private readonly leastSliceMs = SLICE_MS,
    private readonly mostSliceMs = SLICE_MAX_MS,
  ) {
    this.slice = leastSliceMs;
  }

  /** This slice's length in milliseconds. */
  get sliceMs(): number {
    return this.slice;
  }

  /** Whether the slice is used up; call once per unit of work, then `pause()` when it says so. */
  due(): boolean {
    if (++this.units < UNITS_PER_LOOK) return false;
    return this.used();
  }

  /** Whether the slice is used up, looking at the clock now: after a step of unknown length. */
  used(): boolean {
    this.units = 0;
    return performance.now() - this.sliceStart >= this.slice;
  }

  /** Lets the event loop answer what waits, then starts a new slice. */
  async pause(): Promise<void> {
    this.pauses++;
    await giveWay();
    this.sliceStart = performance.now();
    // The others' time, not that of other work in slices: that waits its turn like this one.
    this.slice = Math.max(this.leastSliceMs, Math.min(this.mostSliceMs, othersMs));
    this.units = 0;
  }
}

/**
 * Work written as a generator that yields wherever a slice may end. The same code runs whole for
 * callers that cannot wait (a seed, the replay of a state, the library) and in slices for a
 * request; what it changes it changes between two yields, so no reader sees it half done.
 */
export type Steps<T> = Generator<typeof LOOK | undefined, T, void>;

/**
 * Yielded after a step of some length (a sort of 100,000 values): the clock is looked at then,
 * where a plain `yield` after a cheap unit is counted and looked at every few dozen.
 */
export const LOOK = 'look';

/**
 * Cheap units (a value written in wire form, matched or checked) done between two yields: a yield
 * through the steps of a request costs about as much as such a unit.
 */
export const CHEAP_UNITS = 64;

/** Runs the steps to their end at once. */
export function runWhole<T>(steps: Steps<T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/** Runs the steps in slices, answering what waits whenever a slice is used up. */
export async function runPaced<T>(steps: Steps<T>, pacer = new Pacer()): Promise<T> {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    if (next.value === LOOK ? pacer.used() : pacer.due()) await pacer.pause();
  }
}

/** Items one native sort orders at once: about a millisecond of work. */
const SORT_RUN = 4096;

/** Items merged between two yields of sortSteps. */
const MERGE_UNIT = 256;

/**
 * `items` ordered by `compare` into a new array, in steps: runs of SORT_RUN sorted natively, then
 * merged pairwise. Both are stable, so the order is exactly that of `[...items].sort(compare)`;
 * a sort of 100,000 values in one go held the mock for tens of milliseconds.
 */
export function* sortSteps<T>(items: readonly T[], compare: (a: T, b: T) => number): Steps<T[]> {
  let from = items.slice();
  if (from.length <= SORT_RUN) return from.sort(compare);
  for (let start = 0; start < from.length; start += SORT_RUN) {
    const run = from.slice(start, start + SORT_RUN).sort(compare);
    for (let i = 0; i < run.length; i++) from[start + i] = run[i]!;
    yield LOOK;
  }
  let to = items.slice();
  for (let width = SORT_RUN; width < from.length; width *= 2) {
    for (let low = 0; low < from.length; low += 2 * width) {
      const middle = Math.min(low + width, from.length);
      const high = Math.min(low + 2 * width, from.length);
      let left = low;
      let right = middle;
      for (let k = low; k < high; k++) {
        // Ties take the left item first: the merge keeps the order of equal items.
        const takeLeft =
          right >= high || (left < middle && compare(from[left]!, from[right]!) <= 0);
        to[k] = takeLeft ? from[left++]! : from[right++]!;
        if ((k - low) % MERGE_UNIT === MERGE_UNIT - 1) yield;
      }
    }
    [from, to] = [to, from];
  }
  return from;
}
