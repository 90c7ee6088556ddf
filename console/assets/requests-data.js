// @ts-check
/**
 * The Requests page's data: the filter of a route, whether a summary passes it (as the mock's
 * own filter judges), the first page of the journal, and the feed that holds live requests
 * until the list takes them. Touches no page (unit-tested in node).
 */
import { get, query } from './api.js';

/** @typedef {import('../../src/common/mock/wire.js').JournalEntry} JournalEntry */
/** @typedef {import('../../src/common/mock/wire.js').RequestJournal} RequestJournal */
/** @typedef {import('../../src/common/mock/wire.js').RequestDetail} RequestDetail */
/**
 * The filter of the Requests page: only the keys with a value.
 * @typedef {{ side?: string, method?: string, path?: string, status?: string, device?: string, cid?: string }} RequestFilter
 */

/** The most rows the list keeps in the page. */
export const MAX_ROWS = 500;
/** How many to ask for when the admin requests are left out here: the most the mock gives. */
const ADMIN_MARGIN = 1000;

/** @type {readonly (keyof RequestFilter)[]} */
export const FILTERS = ['side', 'method', 'path', 'status', 'device', 'cid'];
export const SIDES = ['markings', 'enrollment', 'device', 'admin'];
export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

/**
 * Whether a summary passes the filter, as the mock's own filter would judge it.
 * @param {RequestFilter} filter
 * @param {JournalEntry} entry
 */
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

/**
 * The filter a route's parameters give.
 * @param {URLSearchParams} params
 * @returns {RequestFilter}
 */
export function filterOf(params) {
  return Object.fromEntries(FILTERS.map((k) => [k, params.get(k) ?? '']).filter(([, v]) => v));
}

/** The request a route opens, or undefined. @param {string[]} rest */
export const selectedOf = (rest) => (rest[0] ? Number(rest[0]) : undefined);

/**
 * The newest requests the filter finds (at most MAX_ROWS), and how many it finds in all.
 * @param {RequestFilter} filter
 * @returns {Promise<{ requests: JournalEntry[], total: number }>}
 */
export async function loadRequests(filter) {
  // The mock filters by one side or none: without a side, the admin requests are counted
  // apart and left out here.
  const asked = { ...filter, side: filter.side === 'all' ? '' : filter.side };
  const [page, admin] = /** @type {[RequestJournal, RequestJournal | undefined]} */ (
    await Promise.all([
      get(`requests${query({ ...asked, limit: filter.side ? MAX_ROWS : ADMIN_MARGIN })}`),
      filter.side ? undefined : get(`requests${query({ ...asked, side: 'admin', limit: 1 })}`),
    ])
  );
  const requests = (page.requests ?? []).filter((e) => matches(filter, e)).slice(0, MAX_ROWS);
  const total = (page.total ?? 0) - (admin?.total ?? 0);
  return { requests, total: Math.max(total, requests.length) };
}

/** @param {number} id */
export const readRequest = async (id) => /** @type {RequestDetail} */ (await get(`requests/${id}`));

/** What the live state says. @param {'live' | 'reconnecting' | 'closed'} state */
export const liveStateText = (state) =>
  state === 'live' ? 'Live' : state === 'reconnecting' ? 'Reconnecting…' : 'Disconnected';

/**
 * The live requests on their way to the list: queued for its next update, or waiting (while a
 * request is open or the list paused) in a buffer of at most `max`, counted; and how many the
 * filter found in all, shown or not.
 */
export class RequestFeed {
  constructor(max = MAX_ROWS) {
    this.max = max;
    /** @type {JournalEntry[]} arrived, for the next update of the list, oldest first */
    this.queue = [];
    /** @type {JournalEntry[]} arrived while held, newest last, at most max */
    this.waiting = [];
    /** How many arrived while held, kept or not. */
    this.waitingCount = 0;
    /** Requests matching the filter, shown or not. */
    this.shownTotal = 0;
  }

  /** Forgets what arrived (a new filter loads the list again). */
  reset() {
    this.queue = [];
    this.waiting = [];
    this.waitingCount = 0;
  }

  /**
   * Takes a batch that passed the filter: it waits when held, else it is queued (the oldest
   * beyond max are dropped, counted).
   * @param {JournalEntry[]} entries
   * @param {boolean} held
   */
  add(entries, held) {
    if (held) {
      this.waiting.push(...entries);
      this.waitingCount += entries.length;
      if (this.waiting.length > this.max) this.waiting = this.waiting.slice(-this.max);
      return;
    }
    this.queue.push(...entries);
    if (this.queue.length > this.max) {
      this.shownTotal += this.queue.length - this.max;
      this.queue = this.queue.slice(-this.max);
    }
  }

  /** Queues what waited; false when nothing did. */
  release() {
    if (this.waitingCount === 0) return false;
    // Those dropped from the buffer count as "more".
    this.shownTotal += this.waitingCount - this.waiting.length;
    this.queue.push(...this.waiting);
    this.waiting = [];
    this.waitingCount = 0;
    return true;
  }

  /** What the list shows next, oldest first; counted as shown. */
  take() {
    const taken = this.queue;
    this.shownTotal += taken.length;
    this.queue = [];
    return taken;
  }
}
