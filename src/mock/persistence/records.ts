/**
 * The records of the mock's durable state (docs/design.md 3.2): a journal line and a snapshot line
 * both hold one, `{"k": kind, "d": data}`, and replaying them in order rebuilds the state. This
 * folder reads, checks and writes them without knowing the model: the kinds are names here, and
 * what each one does to the state is mock/durable-state.ts.
 */

/** Every kind of record a state file may hold (a clean stop's mark apart, integrity.ts). */
export const RECORD_KIND_NAMES = [
  'devToken',
  'idPart',
  'justInTimeUsers',
  'tenant.set',
  'tenant.delete',
  'marking.set',
  'marking.delete',
  'marking.full',
  'marking.packed',
  'value.set',
  'value.delete',
  'user.set',
  'user.delete',
  'keyspace.set',
  'keyspace.delete',
  'bearer.set',
  'bearer.delete',
  'basic.set',
  'basic.delete',
  'faults',
  'keyServerKey',
  'portalSecret',
  'enrollment.clear',
  'pair.claim',
  'pair.release',
  'package',
  'device',
  'outbox',
  'deviceKey',
  'fingerprint',
  'deviceKeys.clear',
] as const;

export type RecordKind = (typeof RECORD_KIND_NAMES)[number];

const KINDS: ReadonlySet<string> = new Set(RECORD_KIND_NAMES);

export const isRecordKind = (kind: string): kind is RecordKind => KINDS.has(kind);

/**
 * A record as a snapshot is written from: its kind, its data, and what it keeps apart from its
 * data (integrity.ts), either the bytes of that JSON as read (written back as they are) or a value
 * (written as its JSON).
 */
export type StateRecord = [kind: string, data: unknown, kept?: unknown];

/**
 * What a record read back keeps apart from its data (integrity.ts): the bytes of that JSON as read
 * and checked, not parsed, and where they stand, for messages.
 */
export interface KeptBytes {
  bytes: Buffer;
  /** The file's path. */
  file: string;
  line: number;
}

/**
 * What the directory keeps durable (mock/durable-state.ts makes one of the mock's state): it is
 * rebuilt from records, gives itself as records, and reports each change as one.
 */
export interface DurableModel {
  /**
   * Applies one record read back, in order; throws when it does not apply. `kept`: what the
   * record keeps apart from its data, unparsed.
   */
  apply(kind: string, data: unknown, kept?: KeptBytes): void;
  /** The whole model as records, copies taken now (the next snapshot). */
  records(): Iterable<StateRecord>;
  /** Every change from now on, as a record; undefined: no more. */
  listen(listener: ((kind: string, data: unknown) => void) | undefined): void;
}
