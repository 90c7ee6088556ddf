// @ts-check
/**
 * The Requests page's parts: the filter form, the list (a table whose rows are laid out as
 * grids), its notes, and a row of one request.
 */
import { query } from './api.js';
import { clockText, field, h, statusBadge } from './dom.js';
import { took } from './format.js';
import { FILTERS, METHODS, SIDES } from './requests-data.js';
import { routeTo } from './route.js';

/** @typedef {import('./requests-data.js').JournalEntry} JournalEntry */
/** @typedef {import('./requests-data.js').RequestFilter} RequestFilter */

/**
 * The HTTP status, and beside it the device error sealed in the answer (a 200 can carry one).
 * @param {JournalEntry} entry
 */
function statusCell(entry) {
  if (entry.deviceCode === undefined) return statusBadge(entry.status);
  const code = statusBadge(entry.deviceCode);
  code.classList.add('device-code');
  code.title = `device error ${entry.deviceCode}, sealed in the answer`;
  return [statusBadge(entry.status), code];
}

/**
 * A request's row: its path links to it with the filter kept.
 * @param {JournalEntry} entry
 * @param {RequestFilter} filter
 * @param {number | undefined} selectedId
 */
export function rowFor(entry, filter, selectedId) {
  const link = h(
    'a',
    { href: `#/requests/${entry.id}${query(filter)}`, class: 'path' },
    entry.path,
  );
  if (entry.id === selectedId) link.setAttribute('aria-current', 'true');
  return h(
    'tr',
    { role: 'row', 'data-id': entry.id, class: entry.id === selectedId ? 'selected' : null },
    h('td', { role: 'cell', class: 'time' }, clockText(entry.time)),
    h('td', { role: 'cell', class: `side side-${entry.side}` }, entry.side ?? ''),
    h('td', { role: 'cell', class: 'method' }, entry.method),
    h('td', { role: 'cell', title: entry.path }, link),
    h('td', { role: 'cell', class: 'status' }, statusCell(entry)),
    h('td', { role: 'cell', class: 'num' }, took(entry.durationMs)),
    h('td', { role: 'cell', class: 'mono' }, entry.device ?? ''),
  );
}

/**
 * The list and the detail pane beside it: the table's body, the notes of new and older
 * requests, and the pane.
 * @param {() => void} showNew what the note of new requests does
 */
export function listParts(showNew) {
  const newNote = h('button', {
    type: 'button',
    class: 'new-note',
    hidden: true,
    onclick: showNew,
  });
  const moreNote = h('p', { class: 'more-note muted', hidden: true });
  const tbody = h('tbody', { role: 'rowgroup' });
  // Explicit roles: the rows are laid out as grids (app.css), which may drop a table's own.
  const listTable = h(
    'table',
    { class: 'requests-table', role: 'table', 'aria-label': 'Requests, newest first' },
    h(
      'thead',
      { role: 'rowgroup' },
      h(
        'tr',
        { role: 'row' },
        ['Time', 'Side', 'Method', 'Path', 'Status', 'Took', 'Device'].map((t) =>
          h('th', { role: 'columnheader', scope: 'col' }, t),
        ),
      ),
    ),
    tbody,
  );
  const empty = h(
    'p',
    { class: 'empty muted', hidden: true },
    'No requests yet. Run your app, or any ksctl command, against this mock.',
  );
  const list = h(
    'section',
    { class: 'request-list', 'aria-label': 'Requests list' },
    newNote,
    h(
      'div',
      { class: 'table-wrap', role: 'region', 'aria-label': 'Requests, newest first', tabindex: 0 },
      listTable,
    ),
    empty,
    moreNote,
  );
  const detail = h('section', {
    class: 'request-detail card',
    'aria-label': 'The opened request',
    hidden: true,
  });
  const split = h('div', { class: 'split' }, list, detail);
  return { split, detail, tbody, newNote, moreNote, empty };
}

/**
 * The filter form; submitting it routes to the filter it holds.
 * @param {RequestFilter} filter
 */
export function filterForm(filter) {
  /** @param {string[]} values */
  const same = (values) => values.map((v) => /** @type {[string, string]} */ ([v, v]));
  const inputs = {
    side: field('Side', {
      tag: 'select',
      options: [['', 'Service (not admin)'], ...same(SIDES), ['all', 'All sides']],
      value: filter.side ?? '',
    }),
    method: field('Method', {
      tag: 'select',
      options: [['', 'Any method'], ...same(METHODS)],
      value: filter.method ?? '',
    }),
    path: field('Path contains', { type: 'search', autocomplete: 'off', value: filter.path ?? '' }),
    status: field('Status', {
      autocomplete: 'off',
      value: filter.status ?? '',
      placeholder: '404 or 4xx',
      size: 6,
    }),
    device: field('Device', { autocomplete: 'off', value: filter.device ?? '' }),
    cid: field('Conversation id', { autocomplete: 'off', value: filter.cid ?? '' }),
  };
  const form = h(
    'form',
    { class: 'filters', role: 'search', 'aria-label': 'Filter requests' },
    Object.values(inputs).map((f) => f.wrap),
    h(
      'div',
      { class: 'filter-actions' },
      h('button', { type: 'submit', class: 'primary' }, 'Apply'),
      h('button', { type: 'button', class: 'quiet', onclick: () => routeTo('requests') }, 'Clear'),
    ),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const next = Object.fromEntries(FILTERS.map((k) => [k, inputs[k].input.value.trim()]));
    routeTo('requests', [], next);
  });
  return { form, inputs };
}
