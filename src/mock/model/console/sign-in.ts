/**
 * Who may use the mock's console (`/_mock/console/`): one-time codes for the sign-in link the
 * banner prints, and the sessions they open, each behind an HttpOnly cookie and with its own
 * CSRF token. All in memory: a restart of the mock signs every browser out.
 *
 * Codes and session ids are 256-bit random values, kept by their SHA-256 digest, so that how long
 * a lookup takes tells nothing about a stored value; the dev token and CSRF tokens are compared in
 * constant time. This module is loaded with the mock server (the banner's link is made at start);
 * the console itself (routes, assets, events) is loaded only when a browser asks for it.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The session cookie's name on a mock listening on `port`. Browsers keep cookies by host and not
 * by port, so two mocks on one host with one name would each sign the other's browser out.
 */
export const sessionCookieName = (port: number): string => `ksctl_console_${port}`;
/** Where the console lives, and the cookie's Path (the console's pages and API are under it). */
export const CONSOLE_PATH = '/_mock/console';
export const COOKIE_PATH = '/_mock/';
/** An unused sign-in code expires after this long. */
export const CODE_TTL_MS = 24 * 60 * 60 * 1000;
/** A session unused for this long is over. */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
/** Codes and sessions kept at most; past it the oldest code, the least recently used session goes. */
const MAX_CODES = 256;
const MAX_SESSIONS = 256;

export interface ConsoleSession {
  /** Sent back in `X-Ksctl-Csrf` with every request that changes something. */
  readonly csrf: string;
  lastUsed: number;
}

const digest = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

const newSecret = (): string => randomBytes(32).toString('base64url');

/**
 * A sign-in link's code: 128 bits, used once and within a day, so that the whole link fits an
 * 80-column line (the banner prints it).
 */
const newCode = (): string => randomBytes(16).toString('base64url');

/** Whether two secrets are equal, in a time that depends on neither. */
export function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/** The value of cookie `name` in a Cookie header, or undefined. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq >= 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Whether a path is the console's. */
export const isConsolePath = (path: string): boolean =>
  path === CONSOLE_PATH || path.startsWith(`${CONSOLE_PATH}/`);

/** A link that signs a browser in once. */
export function signInLink(url: string, code: string): string {
  return `${url}${CONSOLE_PATH}/login?code=${code}`;
}

export class ConsoleSignIn {
  /** Code digest → when it was made. */
  private readonly codes = new Map<string, number>();
  /** Session id digest → the session, least recently used first. */
  private readonly sessions = new Map<string, ConsoleSession>();

  constructor(
    /** The port the mock listens on, which names the cookie. */
    private readonly port: () => number,
    private readonly now: () => number = Date.now,
    /** The mock speaks HTTPS: the cookie is marked Secure, never sent over plain HTTP. */
    private readonly secure = false,
    /** Told of each code, session id and CSRF token made (the journal scrubs them). */
    private readonly made: (secret: string) => void = () => undefined,
  ) {}

  private get attributes(): string {
    return `HttpOnly;${this.secure ? ' Secure;' : ''} SameSite=Strict; Path=${COOKIE_PATH}`;
  }

  get cookieName(): string {
    return sessionCookieName(this.port());
  }

  /** The Set-Cookie header of a new session. */
  sessionCookie(id: string): string {
    return `${this.cookieName}=${id}; ${this.attributes}`;
  }

  /** The Set-Cookie header that ends one in the browser. */
  clearedCookie(): string {
    return `${this.cookieName}=; ${this.attributes}; Max-Age=0`;
  }

  /** A fresh one-time code for a sign-in link. */
  newCode(): string {
    this.sweep();
    const code = newCode();
    this.made(code);
    this.codes.set(digest(code), this.now());
    if (this.codes.size > MAX_CODES) this.codes.delete(this.codes.keys().next().value!);
    return code;
  }

  /** A new session's id for an unused, unexpired code (which is then spent), or undefined. */
  redeem(code: string): string | undefined {
    this.sweep();
    const key = digest(code);
    if (!this.codes.has(key)) return undefined;
    this.codes.delete(key);
    return this.open();
  }

  /** A new session's id (a sign-in with the dev token). */
  open(): string {
    this.sweep();
    const id = newSecret();
    const csrf = newSecret();
    this.made(id);
    this.made(csrf);
    this.sessions.set(digest(id), { csrf, lastUsed: this.now() });
    if (this.sessions.size > MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
    return id;
  }

  /** The session the request's Cookie header names, its idle time restarted; or undefined. */
  session(cookieHeader: string | undefined): ConsoleSession | undefined {
    const id = cookieValue(cookieHeader, this.cookieName);
    if (id === undefined || id === '') return undefined;
    const key = digest(id);
    const session = this.sessions.get(key);
    if (!session) return undefined;
    const now = this.now();
    if (now - session.lastUsed > SESSION_IDLE_MS) {
      this.sessions.delete(key);
      return undefined;
    }
    session.lastUsed = now;
    // Most recently used last: the first one is the one to drop.
    this.sessions.delete(key);
    this.sessions.set(key, session);
    return session;
  }

  /** Ends the session the Cookie header names, if any. */
  close(cookieHeader: string | undefined): void {
    const id = cookieValue(cookieHeader, this.cookieName);
    if (id !== undefined) this.sessions.delete(digest(id));
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, made] of this.codes) if (now - made > CODE_TTL_MS) this.codes.delete(key);
    for (const [key, session] of this.sessions)
      if (now - session.lastUsed > SESSION_IDLE_MS) this.sessions.delete(key);
  }
}
