// @ts-check
/**
 * The console's pages, each listed once: its route name (#/name), its title (the nav link's text,
 * the page's heading and the document's title) and its module, loaded when first shown. The nav,
 * the routes and the titles all come from here. A page module exports mount(main, route) →
 * { update?(route), unmount?() }. `recorder: true` marks the pages the console of
 * `ksctl mock record` shows (a recorder holds no markings, devices, faults or tokens).
 */

/** @typedef {import('./route.js').Route} Route */
/** @typedef {{ update?(route: Route): void, unmount?(): void }} MountedPage */
/** @typedef {{ mount(main: HTMLElement, route: Route): MountedPage }} PageModule */
/**
 * @typedef {object} PageEntry
 * @property {string} name the route: #/name
 * @property {string} title
 * @property {boolean} [recorder] shown on the console of `ksctl mock record` too
 * @property {() => Promise<PageModule>} load
 */

/** @type {readonly PageEntry[]} */
export const PAGES = [
  { name: 'overview', title: 'Overview', load: () => import('./overview.js') },
  { name: 'markings', title: 'Markings', load: () => import('./markings.js') },
  { name: 'devices', title: 'Devices', load: () => import('./devices.js') },
  { name: 'requests', title: 'Requests', recorder: true, load: () => import('./requests.js') },
  { name: 'faults', title: 'Faults', load: () => import('./faults.js') },
  { name: 'tokens', title: 'Tokens', load: () => import('./tokens.js') },
];

/** The page a console opens on: the first, or on a recorder's console its first page. */
export const HOME = 'overview';
export const RECORDER_HOME = 'requests';

/** The page of a route name, or undefined when there is none by that name. */
export function pageNamed(/** @type {string} */ name) {
  return PAGES.find((page) => page.name === name);
}
