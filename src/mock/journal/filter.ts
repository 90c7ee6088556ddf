/**
 * Which requests of the journal to list (`GET /_mock/requests`, the console's `api/requests`,
 * `ksctl mock requests`): the filter, read from query parameters, and whether an entry matches it.
 */
import { type JournalEntry, REQUEST_SIDES, type RequestSide } from '../../common/mock/wire.js';

/** Filters of `list`; each one given must hold. */
export interface JournalFilter {
  side?: RequestSide;
  method?: string;
  /** A part of the path (and query). */
  path?: string;
  /** A status (404), or a class of them ('4xx'). */
  status?: number | string;
  device?: string;
  cid?: string;
  /** Only entries older than this id (paging back). */
  before?: number;
  /** Only entries newer than this id (what came since). */
  after?: number;
  /** At most this many (the newest of those matching, unless `newestFirst` pages from the top). */
  limit?: number;
  newestFirst?: boolean;
  /** Each entry with its messages. */
  bodies?: boolean;
}

const FILTER_PARAMS = new Set([
  'side',
  'method',
  'path',
  'status',
  'device',
  'cid',
  'before',
  'after',
  'limit',
  'order',
  'bodies',
]);

/**
 * A filter from query parameters (`GET /_mock/requests`, the console's `api/requests`): `side`,
 * `method`, `path`, `status` (404 or 4xx), `device`, `cid`, `before`, `after`, `limit`,
 * `order=newest`, `bodies=true`. A string saying what is wrong when a value is not understood.
 */
export function filterFromQuery(query: URLSearchParams): JournalFilter | string {
  const filter: JournalFilter = {};
  for (const name of query.keys()) {
    if (!FILTER_PARAMS.has(name)) return `unknown parameter ${JSON.stringify(name.slice(0, 50))}`;
  }
  const text = (name: string) => query.get(name) ?? undefined;
  const side = text('side');
  if (side !== undefined) {
    if (!REQUEST_SIDES.includes(side as RequestSide)) {
      return `side must be one of ${REQUEST_SIDES.join(', ')}`;
    }
    filter.side = side as RequestSide;
  }
  for (const name of ['method', 'path', 'device', 'cid'] as const) {
    const value = text(name);
    if (value !== undefined && value !== '') filter[name] = value;
  }
  const status = text('status');
  if (status !== undefined && status !== '') {
    if (!/^(?:[1-5]\d\d|[1-5]xx|[1-5]\d{3})$/i.test(status)) {
      return 'status must be a status (404), a class of them (4xx) or a device error code (4020)';
    }
    filter.status = /x/i.test(status) ? status.toLowerCase() : Number(status);
  }
  for (const name of ['before', 'after', 'limit'] as const) {
    const value = text(name);
    if (value === undefined || value === '') continue;
    if (!/^\d{1,15}$/.test(value)) return `${name} must be a whole number`;
    filter[name] = Number(value);
  }
  const order = text('order');
  if (order !== undefined && order !== 'newest' && order !== 'oldest') {
    return 'order must be newest or oldest';
  }
  if (order === 'newest') filter.newestFirst = true;
  const bodies = text('bodies');
  if (bodies !== undefined && bodies !== 'true' && bodies !== 'false') {
    return 'bodies must be true or false';
  }
  if (bodies === 'true') filter.bodies = true;
  return filter;
}

function statusMatches(status: number, wanted: number | string): boolean {
  if (typeof wanted === 'number') return status === wanted;
  const klass = /^([1-5])xx$/i.exec(wanted)?.[1];
  return klass !== undefined
    ? Math.floor(status / 100) === Number(klass)
    : String(status) === wanted;
}

/**
 * A device error sealed in an answer counts as its class too: 4020 is a 4xx, whatever HTTP
 * status carried it; `status=4020` finds the code itself.
 */
function entryStatusMatches(entry: JournalEntry, wanted: number | string): boolean {
  if (statusMatches(entry.status, wanted)) return true;
  const code = entry.deviceCode;
  if (code === undefined) return false;
  if (typeof wanted === 'number') return code === wanted;
  const klass = /^([1-5])xx$/i.exec(wanted)?.[1];
  return klass !== undefined ? String(code).charAt(0) === klass : String(code) === wanted;
}

export function matches(entry: JournalEntry, filter: JournalFilter): boolean {
  return (
    (filter.side === undefined || entry.side === filter.side) &&
    (filter.method === undefined || entry.method === filter.method.toUpperCase()) &&
    (filter.path === undefined || entry.path.includes(filter.path)) &&
    (filter.status === undefined || entryStatusMatches(entry, filter.status)) &&
    (filter.device === undefined || entry.device === filter.device) &&
    (filter.cid === undefined || entry.cid === filter.cid) &&
    (filter.before === undefined || entry.id < filter.before) &&
    (filter.after === undefined || entry.id > filter.after)
  );
}
