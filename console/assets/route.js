/** The console's hash routes: #/page/rest…?params. */

export const PAGE_NAMES = ['overview', 'markings', 'devices', 'requests', 'faults', 'tokens'];

/** "#/requests/12?side=device" → { name: 'requests', rest: ['12'], params: URLSearchParams } */
export function parseRoute(hash = location.hash) {
  const text = hash.replace(/^#\/?/, '');
  const [path, search = ''] = text.split('?');
  const [name = '', ...rest] = path.split('/').filter(Boolean).map(decodeURIComponent);
  return {
    name: PAGE_NAMES.includes(name) ? name : 'overview',
    rest,
    params: new URLSearchParams(search),
  };
}

/** Sets the hash to a page route; params with empty values are left out. */
export function routeTo(name, rest = [], params = {}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params))
    if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const search = q.toString();
  const hash = `#/${[name, ...rest.map(encodeURIComponent)].join('/')}${search ? `?${search}` : ''}`;
  if (location.hash !== hash) location.hash = hash;
}
