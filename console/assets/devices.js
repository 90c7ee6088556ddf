// @ts-check
/**
 * Devices: the enrolled devices, and one device with its keys (attributes and mutable
 * attributes as the mock holds them, in clear), the messages it logged and a link to its
 * requests on the Requests page.
 */
import { readDevice, readDevices, requestsOf } from './devices-data.js';
import { attributes, count, errorBox, facts, fill, h, table, when } from './dom.js';

/** @typedef {import('./route.js').Route} Route */
/** @typedef {import('./devices-data.js').ConsoleDevice} ConsoleDevice */
/** @typedef {import('./devices-data.js').ConsoleDeviceKey} ConsoleDeviceKey */
/** @typedef {import('./devices-data.js').ConsoleDeviceMessage} ConsoleDeviceMessage */

/**
 * @param {HTMLElement} main
 * @param {Route} route
 */
export function mount(main, route) {
  /** @param {Route} route */
  function render(route) {
    if (route.rest[0]) void showDevice(main, route.rest[0]);
    else void showList(main);
  }
  render(route);
  return { update: render };
}

/** @param {HTMLElement} main */
async function showList(main) {
  const errors = errorBox();
  const list = h('div', { class: 'results' });
  fill(
    main,
    h(
      'div',
      { class: 'page-head' },
      h('h1', {}, 'Devices'),
      h('p', { class: 'muted' }, 'Devices enrolled with this mock, newest first.'),
    ),
    errors.el,
    list,
  );
  try {
    const { devices = [] } = await readDevices();
    fill(
      list,
      table('Enrolled devices', DEVICE_COLUMNS, devices, {
        empty: 'No device has enrolled yet: run ksctl enroll against this mock.',
      }),
    );
  } catch (error) {
    errors.show(error);
  }
}

/** @type {import('./dom.js').Column<ConsoleDevice>[]} */
const DEVICE_COLUMNS = [
  {
    title: 'Device',
    cell: (d) => h('a', { href: `#/devices/${encodeURIComponent(d.id)}`, class: 'mono' }, d.id),
  },
  { title: 'User', cell: (d) => d.user ?? '—' },
  { title: 'Keyspace', cell: (d) => d.keyspace ?? '—' },
  { title: 'Keys', cell: (d) => count(d.keys ?? 0), class: 'num' },
  { title: 'Enrolled', cell: (d) => when(d.enrolled) },
  { title: 'Last seen', cell: (d) => when(d.lastSeen) },
];

/**
 * @param {HTMLElement} main
 * @param {string} id
 */
async function showDevice(main, id) {
  const errors = errorBox();
  const body = h('div');
  fill(
    main,
    h('p', { class: 'crumbs' }, h('a', { href: '#/devices' }, '‹ All devices')),
    h(
      'div',
      { class: 'page-head' },
      h('h1', {}, 'Device ', h('span', { class: 'mono' }, id)),
      h('a', { class: 'button', href: requestsOf(id) }, 'Requests of this device'),
    ),
    errors.el,
    body,
  );
  try {
    const { device, keys = [], messages = [] } = await readDevice(id);
    fill(
      body,
      h(
        'section',
        { class: 'card' },
        facts([
          ['User', device?.user],
          ['Keyspace', device?.keyspace],
          ['Enrolled', when(device?.enrolled)],
          ['Last seen', when(device?.lastSeen)],
          ['Keys', count(keys.length)],
        ]),
      ),
      h('h2', {}, 'Keys'),
      table(`Keys of device ${id}`, KEY_COLUMNS, keys, {
        empty: 'This device has created no keys.',
      }),
      h('h2', {}, 'Messages'),
      table(`Messages of device ${id}`, MESSAGE_COLUMNS, messages, {
        empty: 'No messages (/v2.4/messages) from this device.',
      }),
    );
  } catch (error) {
    errors.show(error);
  }
}

/** @type {import('./dom.js').Column<ConsoleDeviceKey>[]} */
const KEY_COLUMNS = [
  { title: 'Key', cell: (k) => h('span', { class: 'mono' }, k.id) },
  { title: 'Ref', cell: (k) => k.ref || '—' },
  { title: 'Attributes', cell: (k) => attributes(k.attributes, k.decrypted) },
  { title: 'Mutable attributes', cell: (k) => attributes(k.mutableAttributes) },
  { title: 'Created', cell: (k) => when(k.created) },
  { title: 'Modified', cell: (k) => when(k.modified) },
];

/** @type {import('./dom.js').Column<ConsoleDeviceMessage>[]} */
const MESSAGE_COLUMNS = [
  { title: 'Time', cell: (m) => when(m.time) },
  { title: 'Type', cell: (m) => m.type ?? '—' },
  {
    title: 'Data',
    cell: (m) => h('pre', { class: 'inline-json' }, JSON.stringify(m.data ?? {}, null, 1)),
    class: 'wrap',
  },
];
