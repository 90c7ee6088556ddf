/**
 * The record kinds of the mock's durable state (docs/design.md 3.2), in one place. A journal line and
 * a snapshot line are both `{"k": kind, "d": data}`; replaying them in order rebuilds the state.
 * The stores report records as they hold the data (mock/changes.ts), so members added to a
 * marking or a value persist without a change here. To make a new piece of state durable: report
 * its changes to `state.changes`, add its kinds to RECORD_KINDS, and yield its records in
 * stateRecords().
 */
import { createPrivateKey } from 'node:crypto';
import type { FaultRule } from '../wire.js';
import type { StoredKey } from '../device/store.js';
import type { DeviceEntry, OutboxMessage } from '../enrollment/store.js';
import type { MarkingRecord, StoredValue } from '../markings/stored.js';
import {
  type MockKeyspace,
  type MockState,
  type MockUser,
  principalRecord,
  type PrincipalRecord,
} from '../state.js';

type Apply = (state: MockState, data: never) => void;

const principal = (p: PrincipalRecord) => ({
  name: p.name,
  scopes: new Set(p.scopes),
  admin: p.admin,
  ...(p.tenant === undefined ? {} : { tenant: p.tenant }),
});

const markings = (state: MockState, tenant: string) => state.addTenant(tenant).markings;

/** How each kind of record is applied to the state. */
export const RECORD_KINDS: Record<string, Apply> = {
  devToken: (state, token: string) => state.setDevToken(token),
  idPart: (state, part: string) => state.ids.retire(part),
  justInTimeUsers: (state, on: boolean) => (state.justInTimeUsers = on),
  'tenant.set': (state, id: string) => state.addTenant(id),
  'tenant.delete': (state, id: string) => state.tenants.delete(id),
  'marking.set': (state, d: { tenant: string; marking: MarkingRecord }) =>
    markings(state, d.tenant).restoreMarking(d.marking),
  'marking.delete': (state, d: { tenant: string; id: string }) =>
    markings(state, d.tenant).forgetMarking(d.id),
  /** A marking with all its values: how snapshots hold them. */
  'marking.full': (state, d: { tenant: string; marking: MarkingRecord; values: StoredValue[] }) => {
    const store = markings(state, d.tenant);
    store.restoreMarking(d.marking);
    for (const value of d.values) store.restoreValue(d.marking.id, value);
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

export type StateRecord = [kind: string, data: unknown];

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
    for (const r of tenant.markings.records()) yield ['marking.full', { tenant: id, ...r }];
  }
  for (const user of state.users.values()) yield ['user.set', { ...user }];
  for (const keyspace of state.keyspaces.values()) yield ['keyspace.set', { ...keyspace }];
  for (const [key, p] of state.bearer) yield ['bearer.set', principalRecord(key, p)];
  for (const [key, p] of state.basic) yield ['basic.set', principalRecord(key, p)];
  yield ['faults', state.faults.list()];
  yield* state.enrollment.records();
  yield* state.keys.records();
}
