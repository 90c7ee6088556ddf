/**
 * Where a request of the HTTP client goes: a path under the base URL or an absolute URL, with its
 * query written as URLSearchParams would; how traces and errors show it (no credentials in its
 * user info or query); and its origin and path, as undici takes them. Made once per path.
 */
import { redactUrl } from '../../common/http/redact.js';

/** Query parameters; an array sends the parameter once per item (repeated filter terms). */
export type Query = Record<string, string | number | boolean | readonly string[] | undefined>;

/** URLs a client keeps made (ApiClient.url), a few more than one client asks for. */
const URLS_KEPT = 64;

/**
 * Where a request goes: its URL; as traces and errors show it (without credentials in its user
 * info or query); and its origin and path, as undici takes them.
 */
export interface RequestUrl {
  href: string;
  shown: string;
  origin: string;
  path: string;
}

export const isAbsolute = (path: string): boolean => /^https?:\/\//.test(path);

/**
 * A query string's name or value as URLSearchParams writes it (application/x-www-form-urlencoded:
 * every byte but `*-._` and alphanumerics percent-encoded, a space as `+`). Written out because
 * the first URLSearchParams of a process costs a short command about a millisecond.
 */
function formEncode(text: string): string {
  let encoded: string;
  try {
    encoded = encodeURIComponent(text);
  } catch {
    // A lone surrogate: URLSearchParams writes it as U+FFFD.
    return new URLSearchParams([['', text]]).toString().slice(1);
  }
  return encoded
    .replace(/[!'()~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/** The URLs of one client's requests; those without a query kept, a device posts to the same few. */
export class RequestUrls {
  /** Paths resolved without a query. */
  private readonly known = new Map<string, RequestUrl>();

  constructor(private readonly baseUrl: string | undefined) {}

  /** A path's URL, with how messages show it and undici's origin and path. */
  resolve(path: string, query: Query | undefined): RequestUrl {
    // A device client posts to the same two or three URLs again and again.
    const known = query === undefined ? this.known.get(path) : undefined;
    if (known !== undefined) return known;
    if (!isAbsolute(path) && this.baseUrl === undefined) {
      throw new Error(`${path}: this client has no base URL, it takes absolute URLs only`);
    }
    const url = isAbsolute(path) ? new URL(path) : new URL(`${this.baseUrl}${path}`);
    const pairs: string[] = [];
    for (const [k, v] of Object.entries(query ?? {})) {
      if (Array.isArray(v))
        for (const item of v) pairs.push(`${formEncode(k)}=${formEncode(item)}`);
      else if (v !== undefined) pairs.push(`${formEncode(k)}=${formEncode(String(v))}`);
    }
    if (pairs.length > 0 && url.search !== '') {
      // A query in the path as well: URLSearchParams merges them as it always did.
      const merged = new URLSearchParams(url.search);
      for (const pair of new URLSearchParams(pairs.join('&'))) merged.append(...pair);
      url.search = merged.toString();
    } else if (pairs.length > 0) {
      url.search = pairs.join('&');
    }
    const href = url.toString();
    const resolved = {
      href,
      shown: redactUrl(href),
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
    };
    if (query === undefined) {
      if (this.known.size >= URLS_KEPT) this.known.clear();
      this.known.set(path, resolved);
    }
    return resolved;
  }
}
