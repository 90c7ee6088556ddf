// @ts-check
/** The console's hash routes: #/page/rest…?params. Touches no page at import. */
import { HOME, pageNamed } from './pages.js';

/**
 * @typedef {object} Route
 * @property {string} name a page's name (see pages.js)
 * @property {string[]} rest the path after the page's name, decoded
 * @property {URLSearchParams} params
 */

/** "#/requests/12?side=device" → { name: 'requests', rest: ['12'], params: URLSearchParams } */
export function parseRoute(hash = location.hash) {
  const text = hash.replace(/^#\/?/, '');
  const [path = '', search = ''] = text.split('?');
  const [name = '', ...rest] = path.split('/').filter(Boolean).map(decodeURIComponent);
  /** @type {Route} */
  const route = { name: pageNamed(name) ? name : HOME, rest, params: new URLSearchParams(search) };
  return route;
}

/**
 * The hash of a page route; params with empty values are left out.
 * @param {string} name
 * @param {string[]} [rest]
 * @param {Record<string, unknown>} [params]
 */
export function routeHash(name, rest = [], params = {}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params))
    if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const search = q.toString();
  return `#/${[name, ...rest.map(encodeURIComponent)].join('/')}${search ? `?${search}` : ''}`;
}

/**
 * Sets the hash to a page route; params with empty values are left out.
 * @param {string} name
 * @param {string[]} [rest]
 * @param {Record<string, unknown>} [params]
 */
export function routeTo(name, rest = [], params = {}) {
  const hash = routeHash(name, rest, params);
  if (location.hash !== hash) location.hash = hash;
}
