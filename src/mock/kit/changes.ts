/**
 * The one hook between the mock's stores and its durable state (docs/design.md 3.2). A store reports
 * every change as a record, one call per mutation, in the form it holds the data; the state
 * directory (persistence/durable.ts) journals the records, and durable-state.ts replays them.
 * Without `--state` nobody listens and a record costs one call.
 */
export type ChangeListener = (kind: string, data: unknown) => void;

export class ChangeFeed {
  private listener: ChangeListener | undefined;
  private readonly taps: ChangeListener[] = [];

  /** Reports a change. `data` is serialised at once, so the caller may go on mutating it. */
  record(kind: string, data: unknown): void {
    for (const tap of this.taps) tap(kind, data);
    this.listener?.(kind, data);
  }

  /** Also tells `tap` of every change, for as long as the feed lives (the journal's secrets). */
  tap(tap: ChangeListener): void {
    this.taps.push(tap);
  }

  listen(listener: ChangeListener | undefined): void {
    this.listener = listener;
  }
}

/**
 * A Map that reports every set and delete to the feed: the state's plain tables (users,
 * keyspaces, tokens, tenants) are journaled whoever changes them.
 */
export class RecordedMap<K, V> extends Map<K, V> {
  constructor(
    private readonly feed: ChangeFeed,
    private readonly kind: string,
    /** What is journaled for a set; the key must be recoverable from it. */
    private readonly encode: (key: K, value: V) => unknown,
  ) {
    super();
  }

  override set(key: K, value: V): this {
    super.set(key, value);
    // Map's own constructor calls nothing, but guard anyway: fields are set after super().
    this.feed?.record(`${this.kind}.set`, this.encode(key, value));
    return this;
  }

  override delete(key: K): boolean {
    const had = super.delete(key);
    if (had) this.feed.record(`${this.kind}.delete`, key);
    return had;
  }

  override clear(): void {
    for (const key of [...this.keys()]) this.delete(key);
  }
}
