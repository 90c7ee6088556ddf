// @ts-check
/** The Faults page's data: the rule a form describes, and the calls that list and change rules. */
import { api, get } from './api.js';

/** @typedef {import('../../src/common/mock/wire.js').ConsoleFaults} ConsoleFaults */
/** @typedef {import('../../src/common/mock/wire.js').FaultRule} FaultRule */
/** A rule in force as the table lists it: its place (from 0) and its hits. */
/** @typedef {FaultRule & { hits?: number, index: number }} ListedRule */

export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * The rule the form describes: empty fields left out, numbers as typed (the mock checks them).
 * @param {Record<string, unknown>} values
 * @returns {Record<string, string | number>}
 */
export function ruleFrom(values) {
  /** @type {Record<string, string | number>} */
  const rule = {};
  for (const [k, v] of Object.entries(values)) {
    const text = String(v ?? '').trim();
    if (text === '') continue;
    rule[k] =
      ['status', 'code', 'probability', 'times'].includes(k) && /^-?(\d+(\.\d*)?|\.\d+)$/.test(text)
        ? Number(text)
        : text;
  }
  return rule;
}

/** The rules in force, each with its place. @returns {Promise<ListedRule[]>} */
export async function listRules() {
  const { faults = [] } = /** @type {Partial<ConsoleFaults>} */ (await get('faults'));
  return faults.map((f, index) => ({ ...f, index }));
}

/** @param {Record<string, string | number>} rule */
export const addRule = (rule) => api('POST', 'faults', rule);
/** @param {ListedRule} rule */
export const removeRule = (rule) => api('DELETE', `faults/${rule.index}`);
export const clearRules = () => api('DELETE', 'faults');

/** A rule's field as the table shows it: a dash when it has none. @param {unknown} v */
export const cellText = (v) => (v === undefined || v === null ? '—' : String(v));
