/**
 * The console's entry: asks the mock whether this browser is signed in, shows the sign-in
 * screen when not (nothing of the tenant), and otherwise routes #/overview, #/markings, … to the
 * page modules. A page is mount(main, route) → { update?(route), unmount?() }; a route change
 * within one page calls update, so the Requests page keeps its live list while one is opened.
 */
import { session, signIn, signOut, whenSignedOut } from './api.js';
import { fill, h } from './dom.js';
import { parseRoute } from './route.js';

const PAGES = {
  overview: () => import('./overview.js'),
  markings: () => import('./markings.js'),
  devices: () => import('./devices.js'),
  requests: () => import('./requests.js'),
  faults: () => import('./faults.js'),
  tokens: () => import('./tokens.js'),
};

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const menu = document.querySelector('.menu-toggle');
let current; // { name, page }
/** Set on the console of `ksctl mock record`: the origin it records, and only its requests. */
let recording;

function markCurrent(name) {
  for (const link of nav.querySelectorAll('a')) {
    if (link.getAttribute('href') === `#/${name}`) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

async function show() {
  const route = parseRoute();
  if (recording !== undefined && route.name !== 'requests') {
    // A recorder holds no markings, devices, faults or tokens: those belong to a mock.
    history.replaceState(null, '', '#/requests');
    route.name = 'requests';
    route.rest = [];
  }
  markCurrent(route.name);
  setMenu(false);
  if (current?.name === route.name && current.page?.update) {
    current.page.update(route);
    return;
  }
  current?.page?.unmount?.();
  const mine = { name: route.name, page: undefined };
  current = mine;
  const module = await PAGES[route.name]();
  if (current !== mine) return; // another route was asked for meanwhile
  fill(main);
  mine.page = module.mount(main, route);
  document.title = `${route.name[0].toUpperCase()}${route.name.slice(1)} · ksctl ${recording === undefined ? 'mock' : 'mock record'} console`;
  const heading = main.querySelector('h1');
  if (heading && document.activeElement?.closest?.('nav')) {
    heading.setAttribute('tabindex', '-1');
    heading.focus({ preventScroll: true });
  }
}

function setMenu(open) {
  menu.setAttribute('aria-expanded', String(open));
  nav.classList.toggle('open', open);
}

/** What the browser sees without a session: the sign-in form and nothing of the tenant. */
function signInScreen(reason = new URLSearchParams(location.search).get('signin')) {
  current?.page?.unmount?.();
  current = undefined;
  nav.hidden = true;
  menu.hidden = true;
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

async function submitToken(event) {
  event.preventDefault();
  const input = event.target.elements.token;
  try {
    if (await signIn(input.value)) {
      history.replaceState(null, '', location.pathname + (location.hash || '#/overview'));
      location.reload();
      return;
    }
    signInScreen('failed');
  } catch (error) {
    signInScreen();
    main
      .querySelector('.signin h1')
      .after(h('p', { class: 'error-box', role: 'alert' }, error.message));
  }
  main.querySelector('#token')?.focus();
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
  document.querySelector('.skip').addEventListener('click', (event) => {
    event.preventDefault();
    main.focus();
  });
  let signedIn;
  try {
    signedIn = await session();
  } catch (error) {
    fill(
      main,
      h('p', { class: 'error-box', role: 'alert' }, `The mock did not answer: ${error.message}`),
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
    for (const link of nav.querySelectorAll('a')) {
      if (link.getAttribute('href') !== '#/requests') link.parentElement.remove();
    }
    document.querySelector('.brand strong').textContent = 'mock record console';
    document
      .querySelector('.brand')
      .append(h('span', { class: 'recording' }, ` · recording ${recording}`));
  }
  nav.hidden = false;
  menu.hidden = false;
  menu.addEventListener('click', () => setMenu(menu.getAttribute('aria-expanded') !== 'true'));
  nav.querySelector('.signout').addEventListener('click', async () => {
    await signOut();
    signInScreen();
  });
  window.addEventListener('hashchange', () => void show());
  if (!location.hash) {
    history.replaceState(null, '', recording === undefined ? '#/overview' : '#/requests');
  }
  await show();
}

void start();
