/**
 * Modify (docs/design.md 2.4, v2.4 only): replaces keys' mutable attributes, guarded by the
 * signatures the client last fetched unless forced.
 */
import { DeviceErrorCode } from '../../../common/device/causes.js';
import { serviceSignature } from '../../../common/device/crypto.js';
import { modifySignatureAad, modifySigs, modifySigsText } from '../../../common/device/dialects.js';
import type { ItemErrorWire, ModifiedKeyWire } from '../../../common/device/wire.js';
import {
  enforceMarkings,
  ItemFailure,
  openProtected,
  parseAttributes,
  sealForKey,
} from '../../model/device/attributes.js';
import {
  attempt,
  currentState,
  failure,
  injectedErrors,
  markingsOf,
  namedItems,
  type Operation,
  optionalString,
  usableKey,
  verifySignature,
  withItemErrors,
} from './operations.js';
import type { StoredKey } from '../../model/device/store.js';

/** Why a guarded modify is stale: which of the key's signatures moved, and when. */
function staleMessage(
  key: StoredKey,
  current: { csig: string; msig: string },
  sent: {
    prevcsig?: string;
    prevmsig?: string;
  },
): string {
  const moved: string[] = [];
  if (sent.prevcsig !== current.csig) moved.push('prevcsig is not its csig (fixed attributes)');
  if (sent.prevmsig !== current.msig) moved.push('prevmsig is not its msig (mutable attributes)');
  const when =
    key.modifiedAt === undefined
      ? ''
      : `; its mutable attributes were last changed at ${new Date(key.modifiedAt).toISOString()}`;
  return `the key changed since it was fetched, or was never fetched: ${moved.join(', ')}${when}`;
}

/**
 * Modify (v2.4): replaces each key's mutable attributes. A guarded item (`force` false) must quote
 * the key's current signatures as `prevcsig`/`prevmsig`, else it fails with 4202. Answers keep the
 * request's order (the JS SDK matches them by index).
 */
export const modifyKeys: Operation = (req) => {
  const list = namedItems(req.data, 'id');
  if (!list) return undefined;
  if (req.itemFault) {
    const errors = injectedErrors(
      req.itemFault,
      list.map(([id]) => id),
    );
    return withItemErrors(req, { 'protection-keys': [] }, errors);
  }
  const modified: ModifiedKeyWire[] = [];
  const errors = new Map<string, ItemErrorWire>();
  for (const [id, item] of list) {
    attempt(errors, id, () => {
      const { mattrs, msig, force = false } = item;
      if (typeof mattrs !== 'string' || typeof msig !== 'string' || typeof force !== 'boolean') {
        throw new ItemFailure(
          DeviceErrorCode.itemInvalid,
          'mattrs and msig must be strings, force true or false',
        );
      }
      const csig = optionalString(item, 'csig');
      const prevcsig = optionalString(item, 'prevcsig');
      const prevmsig = optionalString(item, 'prevmsig');
      if (csig !== undefined && csig !== '') {
        throw new ItemFailure(
          DeviceErrorCode.itemInvalid,
          'csig must be empty: a modify changes only mutable attributes',
        );
      }
      const key = usableKey(req, id);
      verifySignature(req, modifySignatureAad(req.cid, id, force), mattrs, msig, 'msig');
      const current = currentState(key);
      if (!force && (prevcsig !== current.csig || prevmsig !== current.msig)) {
        throw failure(DeviceErrorCode.signatureStale, staleMessage(key, current, item));
      }
      const attributes = parseAttributes(mattrs, 'mattrs');
      enforceMarkings(attributes, markingsOf(req));
      const dataKey = Buffer.from(key.key, 'hex');
      const text = JSON.stringify(
        sealForKey(openProtected(attributes, req.keys.cdEi), dataKey, id),
      );
      const after = req.state.keys.modify(id, {
        mattrs: text,
        msig: serviceSignature(dataKey, text),
        modifiedAt: req.now,
      });
      const sigsText = modifySigsText(id, { prevcsig, csig, prevmsig, msig });
      modified.push({
        id,
        csig: after.csig,
        msig: after.msig!,
        sigs: modifySigs(req.keys.cdEi, sigsText),
      });
    });
  }
  return withItemErrors(req, { 'protection-keys': modified }, errors);
};
