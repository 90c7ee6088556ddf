/**
 * Keys created through device requests (docs/design.md 2.4) and the device fingerprints the service
 * knows. The data is plain JSON (`snapshot()`/`restore()`), and it changes only through
 * `create`, `modify`, `addFingerprint` and `clear`, each reported to the change feed that the
 * durable state journals (persistence/records.ts).
 */
import type {
  MockDeviceMessage,
  MockDeviceMessages,
  MockKeyListing,
} from '../../../common/device/wire.js';
import { BoundedLog } from '../../kit/bounded-log.js';
import type { ChangeFeed } from '../../kit/changes.js';
import { runWhole, type Steps } from '../../kit/pacing.js';

export interface StoredKey {
  id: string;
  tenant: string;
  /** The device that created it. */
  deviceId: string;
  ref: string;
  /** The 32-byte data key, hex. */
  key: string;
  /** The attribute text as fetch answers it (protected values sealed under the data key). */
  cattrs: string;
  /** HMAC-SHA256(data key, cattrs), Base64. */
  csig: string;
  /** The mutable attribute text; absent (read as `{}`) for keys of older states. */
  mattrs?: string;
  /** HMAC-SHA256(data key, mattrs), Base64. */
  msig?: string;
  /** Epoch milliseconds. */
  createdAt: number;
  modifiedAt?: number;
}

export interface KeyStoreData {
  keys: Record<string, StoredKey>;
  /** Device id → the fingerprint hashes it has sent with a full fingerprint. */
  fingerprints: Record<string, string[]>;
}

export class KeyStore {
  private data: KeyStoreData = { keys: {}, fingerprints: {} };
  /** Tenant → its keys by id, oldest first: a fetch's queries read one tenant's keys. */
  private byTenant = new Map<string, Map<string, StoredKey>>();

  constructor(private readonly changes?: ChangeFeed) {}

  get(id: string): StoredKey | undefined {
    return Object.hasOwn(this.data.keys, id) ? this.data.keys[id] : undefined;
  }

  has(id: string): boolean {
    return Object.hasOwn(this.data.keys, id);
  }

  create(keys: StoredKey[]): void {
    for (const key of keys) {
      const stored = { ...key };
      this.data.keys[key.id] = stored;
      this.index(stored);
      this.changes?.record('deviceKey', key);
    }
  }

  modify(id: string, change: { mattrs: string; msig: string; modifiedAt: number }): StoredKey {
    const key = this.get(id);
    if (!key) throw new Error(`no key ${id}`);
    Object.assign(key, change);
    this.changes?.record('deviceKey', key);
    return key;
  }

  knowsFingerprint(deviceId: string, hash: string): boolean {
    return this.data.fingerprints[deviceId]?.includes(hash) === true;
  }

  addFingerprint(deviceId: string, hash: string): void {
    if (this.knowsFingerprint(deviceId, hash)) return;
    (this.data.fingerprints[deviceId] ??= []).push(hash);
    this.changes?.record('fingerprint', { deviceId, hash });
  }

  /** Keys of one tenant, oldest first. */
  ofTenant(tenant: string): StoredKey[] {
    return [...(this.byTenant.get(tenant)?.values() ?? [])];
  }

  /** The keys one device created, oldest first. */
  ofDevice(deviceId: string): StoredKey[] {
    return Object.values(this.data.keys).filter((key) => key.deviceId === deviceId);
  }

  /** How many keys each device created (devices without keys are not in it). */
  countsByDevice(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const key of Object.values(this.data.keys))
      counts.set(key.deviceId, (counts.get(key.deviceId) ?? 0) + 1);
    return counts;
  }

  /** How many keys there are. */
  get size(): number {
    return Object.keys(this.data.keys).length;
  }

  /** How many keys one tenant has. */
  countOfTenant(tenant: string): number {
    return this.byTenant.get(tenant)?.size ?? 0;
  }

  private index(key: StoredKey): void {
    let keys = this.byTenant.get(key.tenant);
    if (!keys) this.byTenant.set(key.tenant, (keys = new Map()));
    // A key written again (a replayed modify) keeps its place.
    keys.set(key.id, key);
  }

  /** What `GET /_mock/keys` shows: everything but key material and signatures. */
  list(): MockKeyListing[] {
    return runWhole(this.listSteps());
  }

  /** list() in steps (pacing.ts), one a key: a tenant may hold hundreds of thousands. */
  *listSteps(): Steps<MockKeyListing[]> {
    const listing: MockKeyListing[] = [];
    for (const key of Object.values(this.data.keys)) {
      yield;
      listing.push(listed(key));
    }
    return listing;
  }

  snapshot(): KeyStoreData {
    return structuredClone(this.data);
  }

  restore(data: KeyStoreData): void {
    this.data = structuredClone(data);
    this.byTenant.clear();
    for (const key of Object.values(this.data.keys)) this.index(key);
  }

  clear(): void {
    this.data = { keys: {}, fingerprints: {} };
    this.byTenant.clear();
    this.changes?.record('deviceKeys.clear', null);
  }

  /** The store as records (a snapshot's lines): every key, then every known fingerprint. */
  *records(): Generator<[kind: string, data: unknown]> {
    for (const key of Object.values(this.data.keys)) yield ['deviceKey', { ...key }];
    for (const [deviceId, hashes] of Object.entries(this.data.fingerprints))
      for (const hash of hashes) yield ['fingerprint', { deviceId, hash }];
  }
}

/**
 * Conversation ids seen within the skew window: a cid is accepted once. Older ones are dropped,
 * since their time alone already refuses them.
 */
export class RecentCids {
  private readonly seen = new Map<string, number>();
  private nextSweep = 0;

  constructor(private readonly windowMs: number) {}

  /** Records the cid and says whether it is new. */
  claim(cid: string, now: number): boolean {
    if (now >= this.nextSweep) {
      for (const [old, at] of this.seen) if (now - at > 2 * this.windowMs) this.seen.delete(old);
      this.nextSweep = now + this.windowMs;
    }
    if (this.seen.has(cid)) return false;
    this.seen.set(cid, now);
    return true;
  }

  clear(): void {
    this.seen.clear();
  }
}

/** How many device messages (`/v2.4/messages`) the mock keeps, the newest, and in how many bytes. */
export const MESSAGES_KEPT = 1000;
export const MESSAGES_MAX_BYTES = 4 * 1024 * 1024;
/** A message's data larger than this is kept as a note of its size, not in full. */
export const MESSAGE_DATA_MAX_BYTES = 64 * 1024;

/**
 * Messages devices log with `/v2.4/messages`, newest kept, bounded in count and bytes, for
 * `GET /_mock/messages`. Not state (a restart forgets them), like the request journal.
 */
export class DeviceMessages {
  // The newest message stays, however large: its data is cut to MESSAGE_DATA_MAX_BYTES anyway.
  private readonly log = new BoundedLog<MockDeviceMessage>(MESSAGES_KEPT, MESSAGES_MAX_BYTES, true);

  add(messages: MockDeviceMessage[]): void {
    for (const message of messages) {
      let bytes = Buffer.byteLength(JSON.stringify(message.data));
      const data =
        bytes <= MESSAGE_DATA_MAX_BYTES
          ? message.data
          : { 'ksctl-mock': `message data of ${bytes} bytes, not kept` };
      if (data !== message.data) bytes = Buffer.byteLength(JSON.stringify(data));
      bytes += message.type.length * 3 + message.deviceId.length * 3;
      this.log.add({ ...message, data }, bytes);
    }
  }

  list(): MockDeviceMessages {
    return { total: this.log.total, messages: this.log.list() };
  }

  clear(): void {
    this.log.clear();
  }
}

/** A key as `GET /_mock/keys` shows it. */
function listed(key: StoredKey): MockKeyListing {
  return {
    id: key.id,
    tenant: key.tenant,
    deviceId: key.deviceId,
    ref: key.ref,
    cattrs: JSON.parse(key.cattrs) as Record<string, string[]>,
    ...(key.mattrs === undefined
      ? {}
      : { mattrs: JSON.parse(key.mattrs) as Record<string, string[]> }),
    createdAt: new Date(key.createdAt).toISOString(),
    ...(key.modifiedAt === undefined ? {} : { modifiedAt: new Date(key.modifiedAt).toISOString() }),
  };
}
