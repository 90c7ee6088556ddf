/**
 * The mock's enrollment state (docs/design.md 2, 3): the key server key pair, the portal secret that
 * signs UIDAUTHs, enrolled devices, and what replay protection remembers. `clear()` keeps the key
 * pair, so a reset does not invalidate public keys that clients have already fetched.
 */
import { createHash, createPublicKey, type KeyObject, randomBytes } from 'node:crypto';
import { encodeSpkiBase64 } from '../../../common/enrollment/crypto.js';
import { ChangeFeed } from '../../kit/changes.js';
import type { ConsoleOutboxMessage } from '../../../common/mock/wire.js';

const PORTAL_SECRET_BYTES = 32;

export interface KeyServerKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** As served by the pubkey endpoint: Base64 of the DER SubjectPublicKeyInfo. */
  spkiBase64: string;
}

function keyServerKey(privateKey: KeyObject): KeyServerKey {
  const publicKey = createPublicKey(privateKey);
  return { privateKey, publicKey, spkiBase64: encodeSpkiBase64(publicKey) };
}

/** What `GET /_mock/devices` lists. The SEP keys are kept apart and never listed. */
export interface DeviceRecord {
  deviceId: string;
  keyspace: string;
  tenant: string;
  user: string;
  /** ISO 8601. */
  createdAt: string;
}

export interface DeviceKeys {
  /** SEP.CD:KS. */
  cdEi: Buffer;
  /** SEP.CD:IDC. */
  cdIdc: Buffer;
}

/** A registration code "e-mailed" by the portal (`GET /_mock/outbox`). */
export type OutboxMessage = ConsoleOutboxMessage;

/** A device as the durable state journals it: the record and its SEP keys in hex. */
export interface DeviceEntry {
  record: DeviceRecord;
  cdEi: string;
  cdIdc: string;
}

export class EnrollmentState {
  private key: Promise<KeyServerKey> | undefined;
  /** The key pair as recorded (PKCS#8 PEM), once it is there. */
  private keyPem: string | undefined;
  private makeKey: (() => Promise<KeyObject>) | undefined;
  private secret: Buffer = randomBytes(PORTAL_SECRET_BYTES);
  private readonly deviceRecords = new Map<string, DeviceRecord>();
  private readonly sepKeys = new Map<string, DeviceKeys>();
  /** `jti` of every token pair that has enrolled a device (or is enrolling one right now). */
  private readonly enrolledPairs = new Set<string>();
  /** SHA-256 of every `p` seen: replay detection needs equality only, not the packages. */
  private readonly seenPackages = new Set<string>();
  private messages: OutboxMessage[] = [];

  /** Every change is reported to `changes` (see durable-state.ts for the record kinds). */
  constructor(private readonly changes: ChangeFeed = new ChangeFeed()) {}

  /** The key pair; it may still be being generated (the mock listens before it is ready). */
  keyServer(): Promise<KeyServerKey> {
    if (!this.key && this.makeKey) this.setKeyServerKey(this.makeKey());
    if (!this.key) throw new Error('the key server has no key pair yet');
    return this.key;
  }

  /**
   * The key pair, or a promise of it (generated meanwhile), or a function that makes it when it
   * is first needed: a mock started by a test that never enrolls then never pays for one.
   */
  setKeyServerKey(privateKey: KeyObject | Promise<KeyObject> | (() => Promise<KeyObject>)): void {
    this.keyPem = undefined;
    if (typeof privateKey === 'function') {
      this.key = undefined;
      this.makeKey = privateKey;
      return;
    }
    this.makeKey = undefined;
    if (!(privateKey instanceof Promise)) {
      // A key given (a replayed state, a seed): there at once, as its record says.
      this.key = Promise.resolve(this.takeKey(privateKey));
      return;
    }
    const pending: Promise<KeyServerKey> = privateKey.then((key) =>
      this.key === pending ? this.takeKey(key) : keyServerKey(key),
    );
    this.key = pending;
    // A failed generation is reported to whoever awaits the key, not as an unhandled rejection.
    this.key.catch(() => undefined);
  }

  /** The key pair is the mock's from now on: kept as its record, and recorded. */
  private takeKey(privateKey: KeyObject): KeyServerKey {
    this.keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    this.changes.record('keyServerKey', this.keyPem);
    return keyServerKey(privateKey);
  }

  /** Whether the key pair is there (not still being generated, and generation did not fail). */
  get hasKeyServerKey(): boolean {
    return this.keyPem !== undefined;
  }

  /** The key pair's private key as PKCS#8 PEM, once it is there: what a snapshot keeps. */
  get keyServerPem(): string | undefined {
    return this.keyPem;
  }

  /** Signs the mock's UIDAUTHs; renewed by clear(), which voids every pair minted before. */
  get portalSecret(): Buffer {
    return this.secret;
  }

  set portalSecret(secret: Buffer) {
    this.secret = secret;
    this.changes.record('portalSecret', secret.toString('hex'));
  }

  /**
   * Records `p` and says whether it is new. Check and record are one synchronous step, so of many
   * racing requests carrying the same package exactly one sees `true`.
   */
  markPackageSeen(p: string): boolean {
    return this.markDigestSeen(createHash('sha256').update(p, 'utf8').digest('base64'));
  }

  /** markPackageSeen with the digest already taken (a durable state replays digests). */
  markDigestSeen(digest: string): boolean {
    if (this.seenPackages.has(digest)) return false;
    this.seenPackages.add(digest);
    this.changes.record('package', digest);
    return true;
  }

  /** Claims a token pair for one enrollment; false when it is already claimed. */
  claimPair(jti: string): boolean {
    if (this.enrolledPairs.has(jti)) return false;
    this.enrolledPairs.add(jti);
    this.changes.record('pair.claim', jti);
    return true;
  }

  /** Gives a claimed pair back when its enrollment failed after the claim. */
  releasePair(jti: string): void {
    if (this.enrolledPairs.delete(jti)) this.changes.record('pair.release', jti);
  }

  addDevice(record: DeviceRecord, keys: DeviceKeys): void {
    this.deviceRecords.set(record.deviceId, record);
    this.sepKeys.set(record.deviceId, keys);
    this.changes.record('device', deviceEntry(record, keys));
  }

  devices(): DeviceRecord[] {
    return [...this.deviceRecords.values()];
  }

  device(deviceId: string): DeviceRecord | undefined {
    return this.deviceRecords.get(deviceId);
  }

  /** The SEP keys, for device requests and in-process checks; no endpoint exposes them. */
  keysOf(deviceId: string): DeviceKeys | undefined {
    return this.sepKeys.get(deviceId);
  }

  send(message: OutboxMessage): void {
    this.messages.push(message);
    this.changes.record('outbox', message);
  }

  outbox(): OutboxMessage[] {
    return [...this.messages];
  }

  /** Everything but the key server key pair. */
  clear(): void {
    this.changes.record('enrollment.clear', null);
    this.portalSecret = randomBytes(PORTAL_SECRET_BYTES);
    this.deviceRecords.clear();
    this.sepKeys.clear();
    this.enrolledPairs.clear();
    this.seenPackages.clear();
    this.messages = [];
  }

  /** Everything clear() removes, as records (a durable state's snapshot). */
  *records(): Generator<[kind: string, data: unknown]> {
    yield ['portalSecret', this.secret.toString('hex')];
    for (const jti of this.enrolledPairs) yield ['pair.claim', jti];
    for (const digest of this.seenPackages) yield ['package', digest];
    for (const record of this.deviceRecords.values()) {
      yield ['device', deviceEntry(record, this.sepKeys.get(record.deviceId)!)];
    }
    for (const message of this.messages) yield ['outbox', message];
  }
}

function deviceEntry(record: DeviceRecord, keys: DeviceKeys): DeviceEntry {
  return { record, cdEi: keys.cdEi.toString('hex'), cdIdc: keys.cdIdc.toString('hex') };
}
