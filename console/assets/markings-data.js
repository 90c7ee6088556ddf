// @ts-check
/**
 * The Markings page's data: the filter grammar as query terms, and the calls that list, read,
 * create, change and delete markings and their values. Touches no page: the shaping here is
 * unit-tested in node (test/unit/console-markings.test.ts).
 */
import { api, get, query } from './api.js';

/** @typedef {import('../../src/common/markings/wire.js').Marking} Marking */
/** @typedef {import('../../src/common/markings/wire.js').MarkingValue} MarkingValue */
/**
 * @template T
 * @typedef {import('../../src/common/markings/wire.js').ListEnvelope<T>} ListEnvelope
 */
/**
 * What the marking form sends: defaultValue null for none.
 * @typedef {{ name: string, public: boolean, adminOnly: boolean, defaultValue: string | null, detail: { description: string } }} MarkingBody
 */
/** @typedef {{ name: string, description: string }} ValueBody */

/** Markings a page of the list (without their values). */
export const PAGE = 50;
/** Values a page of one marking. */
export const VALUE_PAGE = 100;

/**
 * The filter text as query terms: `name__contains=cl public=true`, terms split on spaces or &,
 * a value in double quotes may hold spaces; a bare word means name__contains=word.
 * @param {string | null | undefined} text
 * @returns {[string, string][]}
 */
export function filterTerms(text) {
  /** @type {[string, string][]} */
  const terms = [];
  const pattern = /([^\s&="]+)(?:=("([^"]*)"|[^\s&]*))?/g;
  for (const m of (text ?? '').matchAll(pattern)) {
    const name = m[1] ?? '';
    if (m[2] === undefined) terms.push(['name__contains', name]);
    else terms.push([name, m[3] ?? m[2]]);
  }
  return terms;
}

/**
 * The query string of filter terms and more parameters (empty ones left out).
 * @param {[string, string][]} terms
 * @param {Record<string, string | number | undefined>} extra
 */
export function termsQuery(terms, extra) {
  const q = new URLSearchParams();
  for (const [k, v] of terms) q.append(k, v);
  for (const [k, v] of Object.entries(extra)) if (v !== undefined && v !== '') q.set(k, String(v));
  return `?${q}`;
}

/** What a route of the list asks for. @param {{ params: URLSearchParams }} route */
export function listAsked(route) {
  return {
    text: route.params.get('q') ?? '',
    or: route.params.get('or') === 'true',
    skip: Number(route.params.get('skip') ?? 0) || 0,
  };
}

/** @param {boolean} b */
export const yesNo = (b) => (b ? 'yes' : 'no');

/** The path of one marking, or of one of its values, under api/. */
const markingPath = (/** @type {string} */ id) => `markings/${encodeURIComponent(id)}`;
const valuePath = (/** @type {string} */ id, /** @type {string} */ valueId) =>
  `${markingPath(id)}/values/${encodeURIComponent(valueId)}`;

/**
 * A page of the markings a filter finds, without their values.
 * @param {{ text: string, or: boolean, skip: number }} asked
 */
export async function listMarkings({ text, or, skip }) {
  const extra = { or: or ? 'true' : '', limit: PAGE, skip, valueLimit: 0 };
  const page = await get(`markings${termsQuery(filterTerms(text), extra)}`);
  return /** @type {ListEnvelope<Marking>} */ (page);
}

/** One marking, without its values. @param {string} id */
export async function readMarking(id) {
  return /** @type {Marking} */ (await get(`${markingPath(id)}${query({ valueLimit: 0 })}`));
}

/**
 * A page of a marking's values a filter finds.
 * @param {string} id
 * @param {{ text: string, skip: number }} asked
 */
export async function listValues(id, { text, skip }) {
  const extra = { limit: VALUE_PAGE, skip };
  const page = await get(`${markingPath(id)}/values${termsQuery(filterTerms(text), extra)}`);
  return /** @type {ListEnvelope<MarkingValue>} */ (page);
}

/** Creates a marking (no default value when the form left it empty). @param {MarkingBody} body */
export async function createMarking(body) {
  const { defaultValue, ...rest } = body;
  const sent = defaultValue === null ? rest : body;
  return /** @type {Marking} */ (await api('POST', 'markings', sent));
}

/** The header that makes a change apply only to the version shown. @param {Marking} marking */
const ifMatch = (marking) => ({ 'If-Match': `"${marking._version}"` });

/**
 * Saves a marking the page shows (id: as the route names it).
 * @param {string} id
 * @param {Marking} marking
 * @param {MarkingBody} body
 */
export async function saveMarking(id, marking, body) {
  await api('PUT', markingPath(id), body, ifMatch(marking));
}

/** @param {string} id @param {Marking} marking */
export async function deleteMarking(id, marking) {
  await api('DELETE', markingPath(id), undefined, ifMatch(marking));
}

/** @param {string} id @param {ValueBody} body */
export async function addValue(id, body) {
  return /** @type {MarkingValue} */ (await api('POST', `${markingPath(id)}/values`, body));
}

/** @param {string} id @param {MarkingValue} value @param {ValueBody} body */
export async function saveValue(id, value, body) {
  await api('PUT', valuePath(id, value.id), body);
}

/** @param {string} id @param {MarkingValue} value */
export async function removeValue(id, value) {
  await api('DELETE', valuePath(id, value.id));
}
