// @ts-check
/**
 * The console's calls to the mock: JSON under api/, the session cookie sent by the browser, and
 * on every call that changes state the CSRF header the session gave. An error answer becomes an
 * ApiError carrying the API's message, details and conversation id, for the page to show.
 */

/** The API's base, beside the page (read when called: this module touches no page at import). */
const base = () => new URL('api/', document.baseURI);
let csrf = '';
/**
 * On the console of `ksctl mock record`: the origin it records (its session says).
 * @type {string | undefined}
 */
let recordingOrigin;

/** The origin a recorder records, or undefined on a mock's console. */
export const recording = () => recordingOrigin;

/**
 * An error answer's body, as the mock's APIs write it.
 * @typedef {{ error?: { message?: string, code?: number | string, details?: unknown, cid?: string } }} ErrorBody
 */

export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {ErrorBody | undefined} body
   */
  constructor(status, body) {
    const error = body?.error ?? {};
    super(error.message ?? `The mock answered ${status}`);
    this.status = status;
    this.code = error.code;
    /** @type {{ path?: string, message?: string }[]} */
    this.details = Array.isArray(error.details) ? error.details : [];
    this.cid = error.cid;
  }
}

/** Called when an answer says the session is gone (401): the app shows the sign-in screen. */
let onSignedOut = () => {};
/** @param {() => void} handler */
export function whenSignedOut(handler) {
  onSignedOut = handler;
}

/**
 * The session: resolves {csrf} when signed in, undefined when not.
 * @returns {Promise<import('../../src/common/mock/wire.js').ConsoleSessionAnswer | undefined>}
 */
export async function session() {
  const answer = await fetch(new URL('session', base()), {
    headers: { Accept: 'application/json' },
  });
  if (answer.status === 401 || answer.status === 403) return undefined;
  if (!answer.ok) throw new ApiError(answer.status, await answer.json().catch(() => undefined));
  const body = await answer.json();
  csrf = body.csrf ?? '';
  recordingOrigin = typeof body.recording === 'string' ? body.recording : undefined;
  return body;
}

/**
 * The query string of an object, leaving out empty values; arrays repeat the name.
 * @param {Record<string, unknown> | undefined} params
 */
export function query(params) {
  const q = new URLSearchParams();
  for (const [name, value] of Object.entries(params ?? {})) {
    if (value === undefined || value === null || value === '') continue;
    for (const v of Array.isArray(value) ? value : [value]) q.append(name, String(v));
  }
  const text = q.toString();
  return text ? `?${text}` : '';
}

/**
 * A call to the console's API; resolves the answer's JSON (undefined for 204), which the caller
 * names by its wire type.
 * @param {string} method
 * @param {string} path under api/
 * @param {unknown} [body] sent as JSON
 * @param {Record<string, string>} [extraHeaders]
 * @returns {Promise<unknown>}
 */
export async function api(method, path, body, extraHeaders = {}) {
  /** @type {Record<string, string>} */
  const headers = { Accept: 'application/json', ...extraHeaders };
  if (method !== 'GET' && method !== 'HEAD') headers['X-Ksctl-Csrf'] = csrf;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const answer = await fetch(new URL(path, base()), {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (answer.status === 204) return undefined;
  const text = await answer.text();
  let parsed;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!answer.ok) {
    if (answer.status === 401) onSignedOut();
    throw new ApiError(
      answer.status,
      parsed ?? { error: { message: text || `The mock answered ${answer.status}` } },
    );
  }
  return parsed;
}

/** @param {string} path */
export const get = (path) => api('GET', path);

/**
 * Signs in with the dev token: POST login as the form would send it (the form also works on its
 * own, without this script), here so that the page keeps its route and shows a refusal in place.
 * Resolves true when signed in, false when the token is wrong; throws what the mock said otherwise.
 * @param {string} token
 */
export async function signIn(token) {
  const answer = await fetch(new URL('../login', base()), {
    method: 'POST',
    body: new URLSearchParams({ token }),
  });
  if (new URL(answer.url).searchParams.get('signin') === 'failed') return false;
  if (!answer.ok) {
    const body = await answer.json().catch(() => undefined);
    throw new ApiError(answer.status, body);
  }
  return true;
}

/** Signs out: the mock forgets the session; the page then shows the sign-in screen. */
export async function signOut() {
  await fetch(new URL('../logout', base()), { method: 'POST', headers: { 'X-Ksctl-Csrf': csrf } });
}

/** @typedef {import('../../src/common/mock/wire.js').JournalEntry} JournalEntry */

/**
 * The live journal: calls onBatch(summaries) for each batch the mock sends. Returns close().
 * @param {(batch: JournalEntry[]) => void} onBatch
 * @param {(state: 'live' | 'reconnecting' | 'closed') => void} [onState]
 */
export function events(onBatch, onState) {
  const source = new EventSource(new URL('events', base()));
  source.addEventListener('requests', (event) => {
    try {
      const batch = JSON.parse(event.data);
      if (Array.isArray(batch)) onBatch(batch);
    } catch {
      // A batch the page cannot read is skipped; the next one comes within a quarter second.
    }
  });
  source.addEventListener('open', () => onState?.('live'));
  source.addEventListener('error', () =>
    onState?.(source.readyState === EventSource.CLOSED ? 'closed' : 'reconnecting'),
  );
  return () => source.close();
}
