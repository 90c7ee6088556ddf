import type { KsctlError } from '../../common/errors.js';
import { deviceError } from '../../common/device/causes.js';
import type { ItemRefusal } from './client.js';

/** One error for the refused items of an answer: the first one's kind, every item named. */
export function refusalError(refused: ItemRefusal[]): KsctlError {
  const [first] = refused;
  if (!first) throw new Error('no refusal');
  if (refused.length === 1) return first.error;
  const lines = refused.map((r) => `  ${r.item}: ${r.message} (${r.code})`);
  const error = deviceError(
    first.code,
    `the service refused ${refused.length} items:\n${lines.join('\n')}`,
  );
  return error;
}
