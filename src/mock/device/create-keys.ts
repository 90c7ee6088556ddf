/**
 * Create (docs/design.md 2.4): new keys for each ref of a request, their attributes checked
 * against the tenant's markings, sealed and signed by the mock, their data keys wrapped for the
 * conversation; all refs or none.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { DeviceErrorCode } from '../../device/causes.js';
import { DATA_KEY_BYTES, serviceSignature, wrapDataKey } from '../../device/crypto.js';
import { createdKeyAad, createSignatureAad } from '../../device/dialects.js';
import type { CreatedKeyWire, ItemErrorWire } from '../../device/wire.js';
import {
  type Attributes,
  enforceMarkings,
  ItemFailure,
  openProtected,
  parseAttributes,
  sealForKey,
  withMarkingDefaults,
} from './attributes.js';
import {
  type DeviceRequest,
  MAX_KEYS_PER_CREATE,
  MAX_QTY,
  markingsOf,
  namedItems,
  type Operation,
  optionalString,
  verifySignature,
} from './operations.js';
import type { StoredKey } from './store.js';

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const ID_SUFFIX_LENGTH = 7;

function newKeyId(req: DeviceRequest): string {
  for (;;) {
    let id = req.device.keyspace;
    for (let i = 0; i < ID_SUFFIX_LENGTH; i++) id += ID_ALPHABET[randomInt(ID_ALPHABET.length)];
    if (!req.state.keys.has(id)) return id;
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
export const createKeys: Operation = (req) => {
  const list = namedItems(req.data, 'ref');
  if (!list) return undefined;
  const plans: CreatePlan[] = [];
  const failures: [string, ItemFailure][] = [];
  for (const [ref, item] of list) {
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

  const created: CreatedKeyWire[] = [];
  for (const plan of plans) {
    const keys = Array.from({ length: plan.qty }, () => newKey(req, plan));
    req.state.keys.create(keys.map((k) => k.stored));
    for (const { stored, dataKey } of keys) {
      const keyAad = createdKeyAad(req.version, req.cid, plan.ref, stored.id, plan.csig, plan.msig);
      created.push({
        ref: plan.ref,
        id: stored.id,
        key: wrapDataKey(req.keys.cdEi, keyAad, dataKey),
        csig: stored.csig,
        msig: stored.msig!,
      });
    }
  }
  return { data: { 'protection-keys': created } };
};

function newKey(req: DeviceRequest, plan: CreatePlan): { stored: StoredKey; dataKey: Buffer } {
  const id = newKeyId(req);
  const dataKey = randomBytes(DATA_KEY_BYTES);
  const cattrs = JSON.stringify(sealForKey(plan.fixed, dataKey, id));
  const mattrs = JSON.stringify(sealForKey(plan.mutable, dataKey, id));
  return {
    dataKey,
    stored: {
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
    },
  };
}
