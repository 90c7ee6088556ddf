/**
 * Create (docs/design.md 2.4): new keys for each ref of a request, their attributes checked
 * against the tenant's markings, sealed and signed by the mock, their data keys wrapped for the
 * conversation; all refs or none.
 */
import { randomBytes } from 'node:crypto';
import { DeviceErrorCode } from '../../../common/device/causes.js';
import { DATA_KEY_BYTES, serviceSignature, wrapDataKey } from '../../../common/device/crypto.js';
import { createdKeyAad, createSignatureAad } from '../../../common/device/dialects.js';
import type { CreatedKeyWire, ItemErrorWire } from '../../../common/device/wire.js';
import {
  type Attributes,
  enforceMarkings,
  ItemFailure,
  openProtected,
  parseAttributes,
  sealForKey,
  withMarkingDefaults,
} from '../../model/device/attributes.js';
import { Pacer } from '../../kit/pacing.js';
import {
  checkStillEnrolled,
  type DeviceRequest,
  injectedFailure,
  MAX_KEYS_PER_CREATE,
  MAX_QTY,
  markingsOf,
  namedItems,
  type Operation,
  optionalString,
  verifySignature,
} from './operations.js';
import type { StoredKey } from '../../model/device/store.js';

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const ID_SUFFIX_LENGTH = 7;
/** Random bytes at or above this are skipped, so each letter of the alphabet is equally likely. */
const ID_BYTE_LIMIT = 256 - (256 % ID_ALPHABET.length);

/** Random bytes one key takes: its data key and the letters of its id, with room for skips. */
const BYTES_PER_KEY = DATA_KEY_BYTES + 2 * ID_SUFFIX_LENGTH;
/** The largest block drawn at once. */
const MAX_DRAW_BYTES = 64 * 1024;

/**
 * Randomness for many keys, drawn in blocks sized to the create: one draw per key and per letter
 * of its id was most of what a large create cost, and a 64 KiB draw for a one-key create was
 * most of what that one cost.
 */
class KeyRandomness {
  private pool = Buffer.alloc(0);
  private at = 0;

  /** `keys`: how many keys the create makes, so the first draw is about what they take. */
  constructor(private readonly keys: number) {}

  private take(bytes: number): Buffer {
    if (this.at + bytes > this.pool.length) {
      const wanted = Math.min(this.keys * BYTES_PER_KEY, MAX_DRAW_BYTES);
      this.pool = randomBytes(Math.max(bytes, wanted));
      this.at = 0;
    }
    this.at += bytes;
    return this.pool.subarray(this.at - bytes, this.at);
  }

  dataKey(): Buffer {
    return Buffer.from(this.take(DATA_KEY_BYTES));
  }

  /** A key id: the keyspace, then random letters; one no key of the store has. */
  keyId(req: DeviceRequest, taken: Set<string>): string {
    for (;;) {
      let id = req.device.keyspace;
      while (id.length < req.device.keyspace.length + ID_SUFFIX_LENGTH) {
        const byte = this.take(1)[0]!;
        if (byte < ID_BYTE_LIMIT) id += ID_ALPHABET[byte % ID_ALPHABET.length];
      }
      if (!req.state.keys.has(id) && !taken.has(id)) return id;
    }
  }
}

interface CreatePlan {
  ref: string;
  qty: number;
  csig?: string;
  msig?: string;
  /** Opened attributes: protected values in the clear until sealed for each key. */
  fixed: Attributes;
  mutable: Attributes;
}

/** One create ref checked, nothing stored yet. */
function planCreate(req: DeviceRequest, ref: string, item: Record<string, unknown>): CreatePlan {
  const { qty } = item;
  if (!(Number.isInteger(qty) && (qty as number) >= 1 && (qty as number) <= MAX_QTY)) {
    throw new ItemFailure(
      DeviceErrorCode.itemInvalid,
      `qty must be a whole number from 1 to ${MAX_QTY}`,
    );
  }
  if (ref === '') throw new ItemFailure(DeviceErrorCode.itemInvalid, 'ref must not be empty');
  const cattrs = optionalString(item, 'cattrs');
  const mattrs = optionalString(item, 'mattrs');
  const csig = optionalString(item, 'csig');
  const msig = optionalString(item, 'msig');
  verifySignature(req, createSignatureAad(req.cid, ref, false), cattrs, csig, 'csig');
  verifySignature(req, createSignatureAad(req.cid, ref, true), mattrs, msig, 'msig');
  const markings = markingsOf(req);
  const sentFixed = cattrs === undefined ? {} : parseAttributes(cattrs, 'cattrs');
  const mutable = mattrs === undefined ? {} : parseAttributes(mattrs, 'mattrs');
  enforceMarkings(sentFixed, markings);
  enforceMarkings(mutable, markings);
  const fixed = withMarkingDefaults(sentFixed, markings, mutable);
  return {
    ref,
    qty: qty as number,
    csig,
    msig,
    fixed: openProtected(fixed, req.keys.cdEi),
    mutable: openProtected(mutable, req.keys.cdEi),
  };
}

/** The one error of a create some refs of which failed: the first one's code, every ref named. */
function createError(failures: [string, ItemFailure][]): ItemErrorWire {
  const [[ref, first]] = failures as [[string, ItemFailure]];
  if (failures.length === 1) return { code: first.code, message: `ref "${ref}": ${first.message}` };
  const all = failures.map(([r, f]) => `ref "${r}": ${f.message} (${f.code})`).join('; ');
  return { code: first.code, message: `${failures.length} refs refused, nothing created: ${all}` };
}

/**
 * Create: every ref is checked first; if one fails, nothing is created and the answer is one
 * top-level error naming the refs (no SDK reads per-ref errors of a create).
 */
export const createKeys: Operation = async (req) => {
  const list = namedItems(req.data, 'ref');
  if (!list) return undefined;
  if (req.itemFault && list.length > 0) {
    const failure = injectedFailure(req.itemFault);
    return { data: {}, error: createError(list.map(([ref]) => [ref, failure])) };
  }
  // Checked, made and stored in slices (pacing.ts): other requests are answered meanwhile.
  const pacer = new Pacer();
  const plans: CreatePlan[] = [];
  const failures: [string, ItemFailure][] = [];
  for (const [ref, item] of list) {
    if (pacer.due()) await pacer.pause();
    try {
      plans.push(planCreate(req, ref, item));
    } catch (error) {
      if (!(error instanceof ItemFailure)) throw error;
      failures.push([ref, error]);
    }
  }
  if (failures.length > 0) return { data: {}, error: createError(failures) };
  const total = plans.reduce((sum, plan) => sum + plan.qty, 0);
  if (total > MAX_KEYS_PER_CREATE) {
    const message = `a create may make at most ${MAX_KEYS_PER_CREATE} keys, not ${total}: nothing created`;
    return { data: {}, error: { code: DeviceErrorCode.itemInvalid, message } };
  }

  const random = new KeyRandomness(total);
  const made: NewKey[] = [];
  const ids = new Set<string>();
  for (const plan of plans) {
    for (let i = 0; i < plan.qty; i++) {
      if (pacer.due()) await pacer.pause();
      const key = newKey(req, plan, random.keyId(req, ids), random.dataKey());
      ids.add(key.stored.id);
      made.push(key);
    }
  }
  // Stored in slices too (with `--state` each key is a journal record). A key is seen by other
  // requests once stored; the answer, and so the acknowledgement, comes after the last one.
  checkStillEnrolled(req);
  for (const [i, key] of made.entries()) {
    if (pacer.due()) {
      await pacer.pause();
      checkStillEnrolled(req);
    }
    // A key another request stored meanwhile under the same id (a chance of one in 10^12).
    if (req.state.keys.has(key.stored.id)) {
      made[i] = newKey(req, key.plan, random.keyId(req, ids), key.dataKey);
    }
    req.state.keys.create([made[i]!.stored]);
  }
  return { data: { 'protection-keys': made.map((key) => key.wire) } };
};

interface NewKey {
  plan: CreatePlan;
  stored: StoredKey;
  dataKey: Buffer;
  /** As the answer holds it, the data key wrapped for the conversation. */
  wire: CreatedKeyWire;
}

function newKey(req: DeviceRequest, plan: CreatePlan, id: string, dataKey: Buffer): NewKey {
  const cattrs = JSON.stringify(sealForKey(plan.fixed, dataKey, id));
  const mattrs = JSON.stringify(sealForKey(plan.mutable, dataKey, id));
  const stored: StoredKey = {
    id,
    tenant: req.device.tenant,
    deviceId: req.device.deviceId,
    ref: plan.ref,
    key: dataKey.toString('hex'),
    cattrs,
    csig: serviceSignature(dataKey, cattrs),
    mattrs,
    msig: serviceSignature(dataKey, mattrs),
    createdAt: req.now,
  };
  const keyAad = createdKeyAad(req.version, req.cid, plan.ref, id, plan.csig, plan.msig);
  const wire: CreatedKeyWire = {
    ref: plan.ref,
    id,
    key: wrapDataKey(req.keys.cdEi, keyAad, dataKey),
    csig: stored.csig,
    msig: stored.msig!,
  };
  return { plan, stored, dataKey, wire };
}
