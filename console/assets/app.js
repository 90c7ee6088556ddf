// @ts-check
/**
 * The console's entry: asks the mock whether this browser is signed in, shows the sign-in
 * screen when not (nothing of the tenant), and otherwise routes #/overview, #/markings, … to the
 * page modules that pages.js lists (which also gives the nav and the titles). A page is
 * mount(main, route) → { update?(route), unmount?() }; a route change within one page calls
 * update, so the Requests page keeps its live list while one is opened.
 */
import { session, signIn, signOut, whenSignedOut } from './api.js';
import { fill, h } from './dom.js';
import { HOME, PAGES, pageNamed, RECORDER_HOME } from './pages.js';
import { parseRoute } from './route.js';

/** @typedef {import('./pages.js').MountedPage} MountedPage */

/**
 * The element of a selector that index.html holds.
 * @template {Element} T
 * @param {string} selector
 * @param {new () => T} type
 * @returns {T}
 */
function part(selector, type) {
  const el = document.querySelector(selector);
  if (!(el instanceof type)) throw new Error(`index.html has no ${selector}`);
  return el;
}

const main = part('#main', HTMLElement);
const nav = part('#nav', HTMLElement);
const menu = part('.menu-toggle', HTMLButtonElement);
/** @type {{ name: string, page: MountedPage | undefined } | undefined} */
let current;
/**
 * Set on the console of `ksctl mock record`: the origin it records, and only its requests.
 * @type {string | undefined}
 */
let recording;

/** The nav's links, one a page of the registry (on a recorder's console, its pages only). */
function buildNav() {
  const shown = PAGES.filter((page) => recording === undefined || page.recorder);
  part('#nav ul', HTMLUListElement).replaceChildren(
    ...shown.map((page) => h('li', {}, h('a', { href: `#/${page.name}` }, page.title))),
  );
}

/** @param {string} name */
function markCurrent(name) {
  for (const link of nav.querySelectorAll('a')) {
    if (link.getAttribute('href') === `#/${name}`) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

async function show() {
  const route = parseRoute();
  if (recording !== undefined && !pageNamed(route.name)?.recorder) {
    // A recorder holds no markings, devices, faults or tokens: those belong to a mock.
    history.replaceState(null, '', `#/${RECORDER_HOME}`);
    route.name = RECORDER_HOME;
    route.rest = [];
  }
  markCurrent(route.name);
  setMenu(false);
  if (current?.name === route.name && current.page?.update) {
    current.page.update(route);
    return;
  }
  current?.page?.unmount?.();
  /** @type {{ name: string, page: MountedPage | undefined }} */
  const mine = { name: route.name, page: undefined };
  current = mine;
  const entry = pageNamed(route.name);
  if (entry === undefined) return; // never: parseRoute names a page of the registry
  const module = await entry.load();
  if (current !== mine) return; // another route was asked for meanwhile
  fill(main);
  mine.page = module.mount(main, route);
  document.title = `${entry.title} · ksctl ${recording === undefined ? 'mock' : 'mock record'} console`;
  const heading = main.querySelector('h1');
  if (heading && document.activeElement?.closest?.('nav')) {
    heading.setAttribute('tabindex', '-1');
    heading.focus({ preventScroll: true });
  }
}

/** @param {boolean} open */
function setMenu(open) {
  menu.setAttribute('aria-expanded', String(open));
  nav.classList.toggle('open', open);
}

/**
 * What the browser sees without a session: the sign-in form and nothing of the tenant.
 * @param {string | null} [reason] why it asks again: 'failed', 'expired'
 */
function signInScreen(reason = new URLSearchParams(location.search).get('signin')) {
  current?.page?.unmount?.();
  current = undefined;
  nav.hidden = true;
  menu.hidden = true;
  /** @type {Record<string, string>} */
  const notes = {
    failed: 'That is not the mock’s dev token. Try again, or use the sign-in link.',
    expired:
      'That sign-in link was already used or is unknown. Run ksctl mock console for a fresh one.',
  };
  document.title = 'Sign in · ksctl mock console';
  fill(
    main,
    h(
      'section',
      { class: 'signin card' },
      h('h1', {}, 'Sign in to the mock console'),
      reason && notes[reason] ? h('p', { class: 'error-box', role: 'alert' }, notes[reason]) : null,
      h(
        'p',
        {},
        'Open the link that ',
        h('code', {}, 'ksctl mock serve'),
        ' prints in its banner, or run ',
        h('code', {}, 'ksctl mock console'),
        ' for a fresh one: it signs this browser in once.',
      ),
      h(
        'form',
        { method: 'post', action: 'login', class: 'stack', onsubmit: submitToken },
        h(
          'div',
          { class: 'field' },
          h('label', { for: 'token' }, 'Dev token'),
          h('input', {
            id: 'token',
            name: 'token',
            type: 'password',
            autocomplete: 'off',
            required: true,
            spellcheck: 'false',
          }),
          h('p', { class: 'hint' }, 'The dev token the banner prints (KSCTL_TOKEN).'),
        ),
        h(
          'div',
          { class: 'actions' },
          h('button', { type: 'submit', class: 'primary' }, 'Sign in'),
        ),
      ),
    ),
  );
}

/** @param {SubmitEvent} event */
async function submitToken(event) {
  event.preventDefault();
  const form = /** @type {HTMLFormElement} */ (event.target);
  const input = /** @type {HTMLInputElement} */ (form.elements.namedItem('token'));
  try {
    if (await signIn(input.value)) {
      history.replaceState(null, '', location.pathname + (location.hash || `#/${HOME}`));
      location.reload();
      return;
    }
    signInScreen('failed');
  } catch (error) {
    signInScreen();
    main
      .querySelector('.signin h1')
      ?.after(h('p', { class: 'error-box', role: 'alert' }, errorMessage(error)));
  }
  const token = main.querySelector('#token');
  if (token instanceof HTMLInputElement) token.focus();
}

/** @param {unknown} error */
function errorMessage(error) {
  return error instanceof Error ? error.message : String(error);
}

async function start() {
  document.body.append(
    h('div', {
      id: 'status-live',
      class: 'visually-hidden',
      role: 'status',
      'aria-live': 'polite',
    }),
  );
  whenSignedOut(signInScreen);
  // The skip link moves focus without touching the hash, which holds the route.
  part('.skip', HTMLAnchorElement).addEventListener('click', (event) => {
    event.preventDefault();
    main.focus();
  });
  let signedIn;
  try {
    signedIn = await session();
  } catch (error) {
    fill(
      main,
      h(
        'p',
        { class: 'error-box', role: 'alert' },
        `The mock did not answer: ${errorMessage(error)}`,
      ),
    );
    return;
  }
  if (!signedIn) {
    signInScreen();
    return;
  }
  if (location.search) history.replaceState(null, '', location.pathname + location.hash);
  if (typeof signedIn.recording === 'string') {
    recording = signedIn.recording;
    part('.brand strong', HTMLElement).textContent = 'mock record console';
    part('.brand', HTMLElement).append(
      h('span', { class: 'recording' }, ` · recording ${recording}`),
    );
  }
  buildNav();
  nav.hidden = false;
  menu.hidden = false;
  menu.addEventListener('click', () => setMenu(menu.getAttribute('aria-expanded') !== 'true'));
  part('#nav .signout', HTMLButtonElement).addEventListener('click', async () => {
    await signOut();
    signInScreen();
  });
  window.addEventListener('hashchange', () => void show());
  if (!location.hash) {
    history.replaceState(null, '', `#/${recording === undefined ? HOME : RECORDER_HOME}`);
  }
  await show();
}

void start();
