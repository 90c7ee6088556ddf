// @ts-check
/**
 * Requests: the mock's journal, newest first, live. The list is loaded once per filter, then
 * grows from server-sent batches. To stay responsive at hundreds of requests a second, new rows
 * are inserted once per animation frame, at most MAX_ROWS stay in the page (the rest is counted
 * in a note), and while a request is open (or the user paused) new ones wait, counted, in a
 * bounded buffer (RequestFeed, requests-data.js). An opened request is shown by request-detail.js.
 */
import { events } from './api.js';
import { count, errorBox, fill, h } from './dom.js';
import { requestDetail } from './request-detail.js';
import {
  FILTERS,
  filterOf,
  liveStateText,
  loadRequests,
  matches,
  MAX_ROWS,
  readRequest,
  RequestFeed,
  selectedOf,
} from './requests-data.js';
import { filterForm, listParts, rowFor } from './requests-view.js';
import { routeTo } from './route.js';

/** @typedef {import('./route.js').Route} Route */
/** @typedef {import('./requests-data.js').JournalEntry} JournalEntry */
/** @typedef {import('./requests-data.js').RequestFilter} RequestFilter */

/** The least time between two updates of the list. */
const FLUSH_MS = 500;

/**
 * @param {HTMLElement} main
 * @param {Route} route
 */
export function mount(main, route) {
  const page = new RequestsPage(main, route);
  return {
    /** @param {Route} route */
    update: (route) => page.update(route),
    unmount: () => page.unmount(),
  };
}

/** The page while it is shown: its filter, the request open, the feed and the list. */
class RequestsPage {
  /**
   * @param {HTMLElement} main
   * @param {Route} route
   */
  constructor(main, route) {
    /** @type {RequestFilter} */
    this.filter = filterOf(route.params);
    /** @type {number | undefined} */
    this.selectedId = selectedOf(route.rest);
    this.paused = false;
    this.feed = new RequestFeed(MAX_ROWS);
    this.frame = 0;
    /** @type {ReturnType<typeof setTimeout> | 0} */
    this.timer = 0;
    this.lastFlush = 0;
    this.loadToken = 0;
    this.detailToken = 0;
    this.errors = errorBox();
    this.liveState = h('span', { class: 'live-state', role: 'status' }, 'Connecting…');
    this.pauseButton = h(
      'button',
      {
        type: 'button',
        class: 'quiet',
        'aria-pressed': 'false',
        onclick: () => this.setPaused(!this.paused),
      },
      'Pause',
    );
    this.parts = listParts(() => this.setPaused(false, true));
    this.filters = filterForm(this.filter);
    fill(
      main,
      h(
        'div',
        { class: 'page-head' },
        h('h1', {}, 'Requests'),
        h('div', { class: 'actions' }, this.liveState, this.pauseButton),
      ),
      this.filters.form,
      this.errors.el,
      this.parts.split,
    );
    this.listen();
    // The live feed.
    this.stop = events(
      (batch) => this.onBatch(batch),
      (state) => {
        this.liveState.textContent = liveStateText(state);
        this.liveState.className = `live-state ${state}`;
      },
    );
    void this.load();
    void this.openDetail();
  }

  /** The row's click and the pane's Escape. */
  listen() {
    const { tbody, split } = this.parts;
    // The whole row opens its request, as its path's link does (a text being selected stays so).
    tbody.addEventListener('click', (event) => {
      const target = /** @type {Element} */ (event.target);
      if (target.closest('a, button') || String(getSelection() ?? '') !== '') return;
      const link = target.closest('tr[data-id]')?.querySelector('a.path');
      if (link instanceof HTMLElement) link.click();
    });
    split.addEventListener('keydown', (event) => {
      if (
        event.key === 'Escape' &&
        this.selectedId !== undefined &&
        !document.querySelector('dialog[open]')
      )
        this.closeDetail();
    });
  }

  /** @param {Route} route */
  update(route) {
    const next = filterOf(route.params);
    const nextId = selectedOf(route.rest);
    const filterChanged = JSON.stringify(next) !== JSON.stringify(this.filter);
    this.filter = next;
    for (const k of FILTERS) this.filters.inputs[k].input.value = this.filter[k] ?? '';
    if (nextId !== this.selectedId) {
      this.selectedId = nextId;
      void this.openDetail();
    }
    if (filterChanged) void this.load();
  }

  unmount() {
    this.stop();
    cancelAnimationFrame(this.frame);
    clearTimeout(this.timer);
  }

  /** @param {boolean} value @param {boolean} [flush] show what waited even when paused */
  setPaused(value, flush = false) {
    this.paused = value;
    this.pauseButton.setAttribute('aria-pressed', String(value));
    this.pauseButton.textContent = value ? 'Resume' : 'Pause';
    if (!value || flush) this.releaseWaiting();
  }

  /** Whether new rows wait: the user paused, or has one open. */
  holding() {
    return this.paused || this.selectedId !== undefined;
  }

  releaseWaiting() {
    if (!this.feed.release()) return;
    this.parts.newNote.hidden = true;
    this.schedule();
  }

  /** @param {JournalEntry[]} batch */
  onBatch(batch) {
    const mine = batch.filter((e) => matches(this.filter, e));
    if (mine.length === 0) return;
    const held = this.holding();
    this.feed.add(mine, held);
    if (!held) return this.schedule();
    const { newNote } = this.parts;
    const n = this.feed.waitingCount;
    newNote.hidden = false;
    newNote.textContent = `${count(n)} new ${n === 1 ? 'request' : 'requests'}: show`;
  }

  /**
   * One DOM update per frame, and at most one every FLUSH_MS: each update lays out and paints
   * the list once, whatever it brings, so fewer and larger ones cost less at a high rate.
   */
  schedule() {
    if (this.frame || this.timer) return;
    const flush = () => this.flush();
    const wait = this.lastFlush + FLUSH_MS - performance.now();
    if (wait <= 0) this.frame = requestAnimationFrame(flush);
    else
      this.timer = setTimeout(() => {
        this.timer = 0;
        this.frame = requestAnimationFrame(flush);
      }, wait);
  }

  flush() {
    this.frame = 0;
    this.lastFlush = performance.now();
    if (this.feed.queue.length === 0) return;
    const { tbody } = this.parts;
    const queued = this.feed.take();
    const fragment = document.createDocumentFragment();
    for (let i = queued.length - 1; i >= 0; i -= 1)
      fragment.append(
        rowFor(/** @type {JournalEntry} */ (queued[i]), this.filter, this.selectedId),
      );
    tbody.prepend(fragment);
    if (tbody.rows.length > MAX_ROWS) {
      const range = document.createRange();
      range.setStartBefore(/** @type {HTMLTableRowElement} */ (tbody.rows[MAX_ROWS]));
      range.setEndAfter(/** @type {Element} */ (tbody.lastElementChild));
      range.deleteContents();
    }
    this.updateNotes();
  }

  updateNotes() {
    const { tbody, empty, moreNote } = this.parts;
    const rows = tbody.rows.length;
    empty.hidden = rows > 0;
    const more = this.feed.shownTotal - rows;
    moreNote.hidden = more <= 0;
    moreNote.textContent = `${count(more)} older ${more === 1 ? 'request' : 'requests'} not shown: filter to find them.`;
  }

  async load() {
    const mine = ++this.loadToken;
    this.feed.reset();
    this.parts.newNote.hidden = true;
    try {
      const { requests, total } = await loadRequests(this.filter);
      if (mine !== this.loadToken) return;
      this.errors.clear();
      this.parts.tbody.replaceChildren(
        ...requests.map((e) => rowFor(e, this.filter, this.selectedId)),
      );
      this.feed.shownTotal = total;
      this.updateNotes();
    } catch (error) {
      if (mine === this.loadToken) this.errors.show(error);
    }
  }

  markSelected() {
    const { tbody } = this.parts;
    for (const row of tbody.querySelectorAll('tr.selected')) {
      row.classList.remove('selected');
      row.querySelector('a')?.removeAttribute('aria-current');
    }
    if (this.selectedId === undefined) return;
    const row = tbody.querySelector(`tr[data-id="${this.selectedId}"]`);
    row?.classList.add('selected');
    row?.querySelector('a')?.setAttribute('aria-current', 'true');
  }

  async openDetail() {
    const mine = ++this.detailToken;
    const { split, detail } = this.parts;
    split.classList.toggle('has-detail', this.selectedId !== undefined);
    this.markSelected();
    if (this.selectedId === undefined) {
      detail.hidden = true;
      detail.replaceChildren();
      if (!this.paused) this.releaseWaiting();
      return;
    }
    detail.hidden = false;
    fill(detail, h('p', { class: 'muted' }, 'Opening…'));
    try {
      const d = await readRequest(this.selectedId);
      if (mine !== this.detailToken) return;
      const { heading, parts } = requestDetail(d, this.closeButton());
      fill(detail, ...parts);
      heading.focus({ preventScroll: true });
    } catch (error) {
      if (mine !== this.detailToken) return;
      const box = errorBox();
      fill(detail, this.closeButton(), box.el);
      box.show(error);
    }
  }

  closeButton() {
    return h(
      'button',
      { type: 'button', class: 'quiet small close', onclick: () => this.closeDetail() },
      'Close',
    );
  }

  closeDetail() {
    const id = this.selectedId;
    routeTo('requests', [], this.filter);
    // Back to the row that was open, for the keyboard.
    requestAnimationFrame(() =>
      /** @type {HTMLElement | null} */ (
        this.parts.tbody.querySelector(`tr[data-id="${id}"] a`)
      )?.focus(),
    );
  }
}
