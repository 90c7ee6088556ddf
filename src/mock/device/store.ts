/**
 * Keys created through device requests (docs/design.md 2.4) and the device fingerprints the service
 * knows. The data is plain JSON (`snapshot()`/`restore()`), and it changes only through
 * `create`, `modify`, `addFingerprint` and `clear`, each reported to the change feed that the
 * durable state journals (persistence/records.ts).
 */
import type { MockKeyListing } from '../../device/wire.js';
import type { ChangeFeed } from '../changes.js';

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
  mattrs?: string;
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

  constructor(private readonly changes?: ChangeFeed) {}

  get(id: string): StoredKey | undefined {
    return Object.hasOwn(this.data.keys, id) ? this.data.keys[id] : undefined;
  }

  has(id: string): boolean {
    return Object.hasOwn(this.data.keys, id);
  }

  create(keys: StoredKey[]): void {
    for (const key of keys) {
      this.data.keys[key.id] = { ...key };
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
    return Object.values(this.data.keys).filter((key) => key.tenant === tenant);
  }

  /** What `GET /_mock/keys` shows: everything but key material and signatures. */
  list(): MockKeyListing[] {
    return Object.values(this.data.keys).map((key) => ({
      id: key.id,
      tenant: key.tenant,
      deviceId: key.deviceId,
      ref: key.ref,
      cattrs: JSON.parse(key.cattrs) as Record<string, string[]>,
      ...(key.mattrs === undefined
        ? {}
        : { mattrs: JSON.parse(key.mattrs) as Record<string, string[]> }),
      createdAt: new Date(key.createdAt).toISOString(),
      ...(key.modifiedAt === undefined
        ? {}
        : { modifiedAt: new Date(key.modifiedAt).toISOString() }),
    }));
  }

  snapshot(): KeyStoreData {
    return structuredClone(this.data);
  }

  restore(data: KeyStoreData): void {
    this.data = structuredClone(data);
  }

  clear(): void {
    this.data = { keys: {}, fingerprints: {} };
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
