/**
 * Requests: the mock's journal, newest first, live. The list is loaded once per filter, then
 * grows from server-sent batches. To stay responsive at hundreds of requests a second, new rows
 * are inserted once per animation frame, at most MAX_ROWS stay in the page (the rest is counted
 * in a note), and while a request is open (or the user paused) new ones wait, counted, in a
 * bounded buffer. An opened request is shown by request-detail.js.
 */
import { events, get, query } from './api.js';
import { clockText, count, errorBox, field, fill, h, statusBadge } from './dom.js';
import { requestDetail, took } from './request-detail.js';
import { routeTo } from './route.js';

export const MAX_ROWS = 500;
/** How many to ask for when the admin requests are left out here: the most the mock gives. */
const ADMIN_MARGIN = 1000;
/** The least time between two updates of the list. */
const FLUSH_MS = 500;

const FILTERS = ['side', 'method', 'path', 'status', 'device', 'cid'];
const SIDES = ['markings', 'enrollment', 'device', 'admin'];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

/** Whether a summary passes the filter, as the mock's own filter would judge it. */
export function matches(filter, entry) {
  // No side chosen: the service's sides, without the admin requests (as `ksctl mock requests`).
  if (!filter.side && entry.side === 'admin') return false;
  if (filter.side && filter.side !== 'all' && entry.side !== filter.side) return false;
  if (filter.method && entry.method !== filter.method.toUpperCase()) return false;
  if (filter.path && !entry.path.includes(filter.path)) return false;
  if (filter.device && entry.device !== filter.device) return false;
  if (filter.cid && entry.cid !== filter.cid) return false;
  if (filter.status) {
    // A device error sealed in the answer counts too: 4020 is a 4xx whatever status carried it.
    const s = String(filter.status).toLowerCase();
    const codes = [entry.status, entry.deviceCode].filter((c) => c !== undefined).map(String);
    if (/^[1-5]xx$/.test(s)) return codes.some((c) => c.charAt(0) === s.charAt(0));
    return codes.includes(s);
  }
  return true;
}

function filterOf(params) {
  return Object.fromEntries(FILTERS.map((k) => [k, params.get(k) ?? '']).filter(([, v]) => v));
}

/** The HTTP status, and beside it the device error sealed in the answer (a 200 can carry one). */
function statusCell(entry) {
  if (entry.deviceCode === undefined) return statusBadge(entry.status);
  const code = statusBadge(entry.deviceCode);
  code.classList.add('device-code');
  code.title = `device error ${entry.deviceCode}, sealed in the answer`;
  return [statusBadge(entry.status), code];
}

function rowFor(entry, filter, selectedId) {
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

export function mount(main, route) {
  let filter = filterOf(route.params);
  let selectedId = route.rest[0] ? Number(route.rest[0]) : undefined;
  let paused = false;
  let shownTotal = 0; // requests matching the filter, shown or not
  let queue = []; // arrived, waiting for the next frame
  let waiting = []; // arrived while paused, newest last, at most MAX_ROWS
  let waitingCount = 0;
  let frame = 0;
  let timer = 0;
  let lastFlush = 0;
  let loadToken = 0;

  const errors = errorBox();
  const liveState = h('span', { class: 'live-state', role: 'status' }, 'Connecting…');
  const pauseButton = h(
    'button',
    { type: 'button', class: 'quiet', 'aria-pressed': 'false', onclick: () => setPaused(!paused) },
    'Pause',
  );
  const newNote = h('button', {
    type: 'button',
    class: 'new-note',
    hidden: true,
    onclick: () => setPaused(false, true),
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

  // The filter form.
  const inputs = {
    side: field('Side', {
      tag: 'select',
      options: [['', 'Service (not admin)'], ...SIDES.map((s) => [s, s]), ['all', 'All sides']],
      value: filter.side ?? '',
    }),
    method: field('Method', {
      tag: 'select',
      options: [['', 'Any method'], ...METHODS.map((m) => [m, m])],
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

  fill(
    main,
    h(
      'div',
      { class: 'page-head' },
      h('h1', {}, 'Requests'),
      h('div', { class: 'actions' }, liveState, pauseButton),
    ),
    form,
    errors.el,
    split,
  );

  function setPaused(value, flush = false) {
    paused = value;
    pauseButton.setAttribute('aria-pressed', String(paused));
    pauseButton.textContent = paused ? 'Resume' : 'Pause';
    if (!paused || flush) releaseWaiting();
  }

  /** Whether new rows wait: the user paused, or has one open. */
  const holding = () => paused || selectedId !== undefined;

  function releaseWaiting() {
    if (waitingCount === 0) return;
    shownTotal += waitingCount - waiting.length; // those dropped from the buffer count as "more"
    queue.push(...waiting);
    waiting = [];
    waitingCount = 0;
    newNote.hidden = true;
    schedule();
  }

  function onBatch(batch) {
    const mine = batch.filter((e) => matches(filter, e));
    if (mine.length === 0) return;
    if (holding()) {
      waiting.push(...mine);
      waitingCount += mine.length;
      if (waiting.length > MAX_ROWS) waiting = waiting.slice(-MAX_ROWS);
      newNote.hidden = false;
      newNote.textContent = `${count(waitingCount)} new ${waitingCount === 1 ? 'request' : 'requests'}: show`;
      return;
    }
    queue.push(...mine);
    if (queue.length > MAX_ROWS) {
      shownTotal += queue.length - MAX_ROWS;
      queue = queue.slice(-MAX_ROWS);
    }
    schedule();
  }

  /**
   * One DOM update per frame, and at most one every FLUSH_MS: each update lays out and paints
   * the list once, whatever it brings, so fewer and larger ones cost less at a high rate.
   */
  function schedule() {
    if (frame || timer) return;
    const wait = lastFlush + FLUSH_MS - performance.now();
    if (wait <= 0) frame = requestAnimationFrame(flush);
    else
      timer = setTimeout(() => {
        timer = 0;
        frame = requestAnimationFrame(flush);
      }, wait);
  }

  function flush() {
    frame = 0;
    lastFlush = performance.now();
    if (queue.length === 0) return;
    const fragment = document.createDocumentFragment();
    for (let i = queue.length - 1; i >= 0; i -= 1)
      fragment.append(rowFor(queue[i], filter, selectedId));
    shownTotal += queue.length;
    queue = [];
    tbody.prepend(fragment);
    if (tbody.rows.length > MAX_ROWS) {
      const range = document.createRange();
      range.setStartBefore(tbody.rows[MAX_ROWS]);
      range.setEndAfter(tbody.lastElementChild);
      range.deleteContents();
    }
    updateNotes();
  }

  function updateNotes() {
    const rows = tbody.rows.length;
    empty.hidden = rows > 0;
    const more = shownTotal - rows;
    moreNote.hidden = more <= 0;
    moreNote.textContent = `${count(more)} older ${more === 1 ? 'request' : 'requests'} not shown: filter to find them.`;
  }

  async function load() {
    const mine = ++loadToken;
    queue = [];
    waiting = [];
    waitingCount = 0;
    newNote.hidden = true;
    try {
      // The mock filters by one side or none: without a side, the admin requests are counted
      // apart and left out here.
      const asked = { ...filter, side: filter.side === 'all' ? '' : filter.side };
      const [page, admin] = await Promise.all([
        get(`requests${query({ ...asked, limit: filter.side ? MAX_ROWS : ADMIN_MARGIN })}`),
        filter.side ? undefined : get(`requests${query({ ...asked, side: 'admin', limit: 1 })}`),
      ]);
      if (mine !== loadToken) return;
      errors.clear();
      const requests = (page.requests ?? []).filter((e) => matches(filter, e)).slice(0, MAX_ROWS);
      tbody.replaceChildren(...requests.map((e) => rowFor(e, filter, selectedId)));
      const total = (page.total ?? 0) - (admin?.total ?? 0);
      shownTotal = Math.max(total, requests.length);
      updateNotes();
    } catch (error) {
      if (mine === loadToken) errors.show(error);
    }
  }

  function markSelected() {
    for (const row of tbody.querySelectorAll('tr.selected')) {
      row.classList.remove('selected');
      row.querySelector('a')?.removeAttribute('aria-current');
    }
    if (selectedId === undefined) return;
    const row = tbody.querySelector(`tr[data-id="${selectedId}"]`);
    row?.classList.add('selected');
    row?.querySelector('a')?.setAttribute('aria-current', 'true');
  }

  let detailToken = 0;
  async function openDetail() {
    const mine = ++detailToken;
    split.classList.toggle('has-detail', selectedId !== undefined);
    markSelected();
    if (selectedId === undefined) {
      detail.hidden = true;
      detail.replaceChildren();
      if (!paused) releaseWaiting();
      return;
    }
    detail.hidden = false;
    fill(detail, h('p', { class: 'muted' }, 'Opening…'));
    try {
      const d = await get(`requests/${selectedId}`);
      if (mine !== detailToken) return;
      renderDetail(d);
    } catch (error) {
      if (mine !== detailToken) return;
      const box = errorBox();
      fill(detail, closeButton(), box.el);
      box.show(error);
    }
  }

  function closeButton() {
    return h(
      'button',
      { type: 'button', class: 'quiet small close', onclick: closeDetail },
      'Close',
    );
  }
  function closeDetail() {
    const id = selectedId;
    routeTo('requests', [], filter);
    // Back to the row that was open, for the keyboard.
    requestAnimationFrame(() => tbody.querySelector(`tr[data-id="${id}"] a`)?.focus());
  }

  function renderDetail(d) {
    const { heading, parts } = requestDetail(d, closeButton());
    fill(detail, ...parts);
    heading.focus({ preventScroll: true });
  }

  // The whole row opens its request, as its path's link does (a text being selected stays so).
  tbody.addEventListener('click', (event) => {
    const target = /** @type {Element} */ (event.target);
    if (target.closest('a, button') || String(getSelection() ?? '') !== '') return;
    target.closest('tr[data-id]')?.querySelector('a.path')?.click();
  });

  split.addEventListener('keydown', (event) => {
    if (
      event.key === 'Escape' &&
      selectedId !== undefined &&
      !document.querySelector('dialog[open]')
    )
      closeDetail();
  });

  // The live feed.
  const stop = events(onBatch, (state) => {
    liveState.textContent =
      state === 'live' ? 'Live' : state === 'reconnecting' ? 'Reconnecting…' : 'Disconnected';
    liveState.className = `live-state ${state}`;
  });
  void load();
  void openDetail();

  return {
    update(route) {
      const next = filterOf(route.params);
      const nextId = route.rest[0] ? Number(route.rest[0]) : undefined;
      const filterChanged = JSON.stringify(next) !== JSON.stringify(filter);
      filter = next;
      for (const k of FILTERS) inputs[k].input.value = filter[k] ?? '';
      if (nextId !== selectedId) {
        selectedId = nextId;
        void openDetail();
      }
      if (filterChanged) void load();
    },
    unmount() {
      stop();
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    },
  };
}
