/**
 * The mock's state made durable (`--state`, docs/design.md 3.2): what each kind of record does to
 * the state, the state as records, and DurableState, which wires a MockState to its state
 * directory (persistence/durable.ts knows the model only as records). The stores report records
 * as they hold the data (kit/changes.ts), so members added to a marking or a value persist
 * without a change here. To make a new piece of state durable: report its changes to
 * `state.changes`, name its kinds in persistence/records.ts and apply them in RECORD_KINDS, and
 * yield its records in stateRecords().
 */
import { createPrivateKey } from 'node:crypto';
import type { FaultRule } from '../../common/mock/wire.js';
import type { StoredKey } from './device/store.js';
import type { DeviceEntry, OutboxMessage } from './enrollment/store.js';
import { type PackedValues, packValues } from './markings/packed.js';
import type { MarkingRecord, StoredValue } from './markings/stored.js';
import { type DurableOptions, StateDirectory } from '../persistence/durable.js';
import { changeRecords, type Inspection } from '../persistence/inspection.js';
import type { DurableModel, KeptBytes, RecordKind, StateRecord } from '../persistence/records.js';
import {
  type MockKeyspace,
  MockState,
  type MockUser,
  principalRecord,
  type PrincipalRecord,
} from './state.js';

/** What a record keeps apart from its data (persistence/integrity.ts); `readNow`: parse it now. */
type Kept = KeptBytes & { readNow?: boolean };

type Apply = (state: MockState, data: never, kept: Kept | undefined) => void;

const principal = (p: PrincipalRecord) => ({
  name: p.name,
  scopes: new Set(p.scopes),
  admin: p.admin,
  ...(p.tenant === undefined ? {} : { tenant: p.tenant }),
});

const markings = (state: MockState, tenant: string) => state.addTenant(tenant).markings;

/** How each kind of record is applied to the state. */
export const RECORD_KINDS: Record<RecordKind, Apply> = {
  devToken: (state, token: string) => state.setDevToken(token),
  idPart: (state, part: string) => state.ids.retire(part),
  justInTimeUsers: (state, on: boolean) => (state.justInTimeUsers = on),
  'tenant.set': (state, id: string) => state.addTenant(id),
  'tenant.delete': (state, id: string) => state.tenants.delete(id),
  'marking.set': (state, d: { tenant: string; marking: MarkingRecord }) =>
    markings(state, d.tenant).restoreMarking(d.marking),
  'marking.delete': (state, d: { tenant: string; id: string }) =>
    markings(state, d.tenant).forgetMarking(d.id),
  /** A marking with all its values: how snapshots of formats 1 and 2 hold them. */
  'marking.full': (state, d: { tenant: string; marking: MarkingRecord; values: StoredValue[] }) => {
    const store = markings(state, d.tenant);
    store.restoreMarking(d.marking);
    for (const value of d.values) store.restoreValue(d.marking.id, value);
  },
  /**
   * A marking with its values packed: how snapshots hold them (markings/packed.ts). Format 4 keeps
   * the columns apart, read when the marking is first used (markings/deferred.ts); format 3 holds
   * them in the record.
   */
  'marking.packed': (state, d: { tenant: string } & PackedValues, kept) => {
    const store = markings(state, d.tenant);
    if (kept === undefined) store.restorePacked(d);
    else store.restoreDeferred(d, kept, kept.readNow);
  },
  'value.set': (state, d: { tenant: string; markingId: string; value: StoredValue }) =>
    markings(state, d.tenant).restoreValue(d.markingId, d.value),
  'value.delete': (state, d: { tenant: string; markingId: string; id: string }) =>
    markings(state, d.tenant).forgetValue(d.markingId, d.id),
  'user.set': (state, user: MockUser) => state.users.set(user.name, user),
  'user.delete': (state, name: string) => state.users.delete(name),
  'keyspace.set': (state, keyspace: MockKeyspace) => state.keyspaces.set(keyspace.id, keyspace),
  'keyspace.delete': (state, id: string) => state.keyspaces.delete(id),
  'bearer.set': (state, p: PrincipalRecord) => state.bearer.set(p.key, principal(p)),
  'bearer.delete': (state, key: string) => state.bearer.delete(key),
  'basic.set': (state, p: PrincipalRecord) => state.basic.set(p.key, principal(p)),
  'basic.delete': (state, key: string) => state.basic.delete(key),
  faults: (state, rules: FaultRule[]) => state.faults.replace(rules),
  keyServerKey: (state, pem: string) =>
    state.enrollment.setKeyServerKey(createPrivateKey({ key: pem, format: 'pem' })),
  portalSecret: (state, hex: string) => (state.enrollment.portalSecret = Buffer.from(hex, 'hex')),
  'enrollment.clear': (state) => state.enrollment.clear(),
  'pair.claim': (state, jti: string) => state.enrollment.claimPair(jti),
  'pair.release': (state, jti: string) => state.enrollment.releasePair(jti),
  package: (state, digest: string) => state.enrollment.markDigestSeen(digest),
  device: (state, d: DeviceEntry) =>
    state.enrollment.addDevice(d.record, {
      cdEi: Buffer.from(d.cdEi, 'hex'),
      cdIdc: Buffer.from(d.cdIdc, 'hex'),
    }),
  outbox: (state, message: OutboxMessage) => state.enrollment.send(message),
  deviceKey: (state, key: StoredKey) => state.keys.create([key]),
  fingerprint: (state, d: { deviceId: string; hash: string }) =>
    state.keys.addFingerprint(d.deviceId, d.hash),
  'deviceKeys.clear': (state) => state.keys.clear(),
};

/** Applies one record read back to the state; throws when it does not apply. */
function applyRecord(state: MockState, kind: string, data: unknown, kept?: Kept): void {
  RECORD_KINDS[kind as RecordKind](state, data as never, kept);
}

/**
 * The whole state as records, copies taken now (the state may change while a snapshot is being
 * written). Tenants come before their markings, markings before their values.
 */
export function* stateRecords(state: MockState): Generator<StateRecord> {
  yield ['devToken', state.devToken];
  for (const part of state.ids.usedParts()) yield ['idPart', part];
  yield ['justInTimeUsers', state.justInTimeUsers];
  const keyServerPem = state.enrollment.keyServerPem;
  if (keyServerPem !== undefined) yield ['keyServerKey', keyServerPem];
  for (const [id, tenant] of state.tenants) {
    yield ['tenant.set', id];
    for (const r of tenant.markings.snapshotRecords()) {
      if ('columns' in r) {
        // Never read since the last restart: written back as it was read.
        yield ['marking.packed', { tenant: id, ...r.head }, r.columns];
        continue;
      }
      const packed = packValues(r.marking, r.values);
      if (packed === undefined) {
        yield ['marking.full', { tenant: id, ...r }];
        continue;
      }
      const { columns, ...head } = packed;
      yield ['marking.packed', { tenant: id, ...head }, columns];
    }
  }
  for (const user of state.users.values()) yield ['user.set', { ...user }];
  for (const keyspace of state.keyspaces.values()) yield ['keyspace.set', { ...keyspace }];
  for (const [key, p] of state.bearer) yield ['bearer.set', principalRecord(key, p)];
  for (const [key, p] of state.basic) yield ['basic.set', principalRecord(key, p)];
  yield ['faults', state.faults.list()];
  yield* state.enrollment.records();
  yield* state.keys.records();
}

/** A record that verifies but does not apply to the state the records before it built. */
export interface UnusableRecord {
  file: string;
  line: number;
  kind: string;
  reason: string;
}

/**
 * The state the records that verify build, in order (the snapshot's, then the journals'); the
 * records that verify but cannot be applied are left out and told. Every record counted in the
 * report is either kept or unusable.
 */
export function rebuildState(inspection: Inspection): {
  state: MockState;
  kept: number;
  unusable: UnusableRecord[];
} {
  const state = new MockState('ksdev.recovered');
  const unusable: UnusableRecord[] = [];
  let kept = 0;
  for (const record of changeRecords(inspection)) {
    // What a record keeps apart is read now: what does not read back is left out here too.
    const apart = record.kept && {
      bytes: record.kept,
      file: record.file,
      line: record.line,
      readNow: true,
    };
    try {
      applyRecord(state, record.kind, record.data, apart);
      kept++;
    } catch (error) {
      unusable.push({
        file: record.file,
        line: record.line,
        kind: record.kind,
        reason: (error as Error).message,
      });
    }
  }
  return { state, kept, unusable };
}

/** The state as the state directory sees it: records in, records out, changes as records. */
function durableModel(state: MockState): DurableModel {
  return {
    apply: (kind, data, kept) => applyRecord(state, kind, data, kept),
    records: () => stateRecords(state),
    listen: (listener) => state.changes.listen(listener),
  };
}

/** A mock's state kept in a state directory: restored at start, every change journaled. */
export class DurableState {
  private constructor(private readonly directory: StateDirectory) {}

  /**
   * Takes the directory (creating it) and checks what is in it; nothing is applied yet. A
   * damaged directory is refused (exit 3) with every file left as it was.
   */
  static async open(options: DurableOptions): Promise<DurableState> {
    return new DurableState(await StateDirectory.open(options));
  }

  /** Nothing was on disk: the caller loads defaults and seed before attach(). */
  get fresh(): boolean {
    return this.directory.fresh;
  }

  /**
   * A fresh directory gets the state as it is as its first snapshot; otherwise the state is
   * rebuilt from the files. From then on every change is journaled.
   */
  async attach(state: MockState): Promise<void> {
    await this.directory.attach(durableModel(state));
    // This run's ids must differ from every earlier run's.
    if (!this.directory.fresh) state.changes.record('idPart', state.ids.processPart);
  }

  /** Resolves once every change made so far is on disk; rejects when it could not be written. */
  sync(): Promise<void> {
    return this.directory.sync();
  }

  /** Writes the state as a new snapshot and drops the journal before it. */
  compact(): Promise<void> {
    return this.directory.compact();
  }

  /** Flushes, marks the journal as stopped cleanly and gives the directory up. */
  close(): Promise<void> {
    return this.directory.close();
  }
}
