/**
 * The newest entries of a log, oldest first, within a count and a byte budget: the request
 * journal and the devices' messages. Not state: a restart forgets them. `keepNewest`: the newest
 * entry stays even when it alone is over the byte budget.
 */
export class BoundedLog<T> {
  private entries: { item: T; bytes: number }[] = [];
  /** Index of the oldest kept entry: dropping from the front is O(1) until compaction. */
  private first = 0;
  private bytes = 0;
  private added = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxBytes: number,
    private readonly keepNewest = false,
    /** Told about each entry the bounds drop (not those `clear()` drops). */
    private readonly onDrop?: (item: T) => void,
  ) {}

  /** Adds an entry of `bytes` (its size in the answer that lists it), dropping the oldest. */
  add(item: T, bytes: number): void {
    this.entries.push({ item, bytes });
    this.bytes += bytes;
    this.added++;
    for (;;) {
      const kept = this.entries.length - this.first;
      const overBytes = this.bytes > this.maxBytes && !(this.keepNewest && kept === 1);
      if (kept <= this.maxEntries && !overBytes) break;
      const dropped = this.entries[this.first++]!;
      this.bytes -= dropped.bytes;
      this.onDrop?.(dropped.item);
    }
    if (this.first > this.maxEntries / 10) {
      this.entries = this.entries.slice(this.first);
      this.first = 0;
    }
  }

  /** Every entry ever added, kept or not. */
  get total(): number {
    return this.added;
  }

  /** Entries kept now. */
  get length(): number {
    return this.entries.length - this.first;
  }

  /** The kept entry at `index`, 0 being the oldest. */
  at(index: number): T | undefined {
    return index >= 0 && index < this.length ? this.entries[this.first + index]!.item : undefined;
  }

  list(): T[] {
    return this.entries.slice(this.first).map((entry) => entry.item);
  }

  clear(): void {
    this.entries = [];
    this.first = 0;
    this.bytes = 0;
    this.added = 0;
  }
}
