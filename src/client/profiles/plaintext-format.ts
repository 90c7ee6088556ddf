/** The plaintext persistor: the profile JSON document as is. */
import { countJsonNodes, NESTING_MAX, nodeBudget } from '../../common/files/node-budget.js';
import { defaultProfileLimit, encodeProfileSetJson, parseProfileSetJson } from './profile-json.js';
import type { ProfileSet } from './types.js';

export function encodePlaintextFile(set: ProfileSet): Buffer {
  return encodeProfileSetJson(set);
}

export function decodePlaintextFile(bytes: Buffer, source: string, maxBytes?: number): ProfileSet {
  return parseProfileSetJson(
    bytes,
    source,
    'If the file is encrypted, read it as a password or aesgcm persistor.',
    maxBytes,
  );
}

/**
 * True when bytes given to an encrypted format are in fact a plaintext profile file, so the user
 * hears "wrong persistor type" instead of "wrong password".
 */
export function looksLikePlaintextProfiles(bytes: Buffer): boolean {
  try {
    const text = bytes.toString('utf8');
    // Not parsed at all when parsing it would take more than a profile file may.
    const most = nodeBudget(defaultProfileLimit()).nodes;
    const count = countJsonNodes(text, most);
    if (count.nodes > most || count.depth > NESTING_MAX) return false;
    const document: unknown = JSON.parse(text);
    return typeof document === 'object' && document !== null && 'profiles' in document;
  } catch {
    return false;
  }
}
