/**
 * One side of a conformance run, the service (`target`) or the embedded mock: its requests sent as
 * they are and answered whatever the status, the ids of markings and values looked up by name (the
 * two sides give the same things different ids), and what a scenario creates before its request.
 */
import type { ApiClient } from '../api/client.js';
import { headerText } from '../api/answer-body.js';
import type { ObservedAnswer } from './compare.js';

export type SideName = 'target' | 'mock';

/** A request of a scenario, as both sides send it (each with its own ids in the path). */
export interface SentRequest {
  method: string;
  /** Relative to the markings base URL, or an absolute URL (the enrollment endpoints). */
  path: string;
  query?: Record<string, string | readonly string[]>;
  headers?: Record<string, string>;
  /** JSON, or a string sent as it is. */
  body?: unknown;
  /** Sent with a token the service cannot know instead of the side's own. */
  wrongToken?: boolean;
}

/** What a side answered to a scenario's request, and how the request is shown. */
export interface SideAnswer extends ObservedAnswer {
  shown: string;
}

/** A preparation that did not work: the scenario is skipped with this reason. */
export class NotPrepared extends Error {}

/** Every status is an answer here: the comparison judges it, not the client. */
const EVERY_STATUS = Array.from({ length: 500 }, (_, i) => 100 + i);

/** The enrollment endpoints of a side that need no device. */
export interface SideEndpoints {
  keyspace?: string;
  enrollmentUrl?: string;
  /** Where the key naming lookup is (`{url}/v2.4/kns/keyspaces/{ks}`). */
  knsUrl?: string;
}

export class Side {
  private readonly markingIds = new Map<string, string>();

  constructor(
    readonly name: SideName,
    private readonly client: ApiClient,
    /** The same service with a token it does not know. */
    private readonly stranger: ApiClient,
    readonly endpoints: SideEndpoints,
    private readonly signal?: AbortSignal,
  ) {}

  /** Ctrl-C: the run stops, its requests in flight end. */
  get aborted(): boolean {
    return this.signal?.aborted === true;
  }

  async send(request: SentRequest): Promise<SideAnswer> {
    const client = request.wrongToken === true ? this.stranger : this.client;
    const answer = await client.request<unknown>(request.method, request.path, {
      query: request.query,
      headers: request.headers,
      body: request.body,
      okStatuses: EVERY_STATUS,
      what: `${request.method} ${request.path}`,
      signal: this.signal,
    });
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(answer.headers)) {
      const text = headerText(value);
      if (text !== undefined) headers[name.toLowerCase()] = text;
    }
    return {
      status: answer.status,
      headers,
      body: answer.body,
      shown: this.shown(request),
    };
  }

  /** The request as a report shows it: method, path under the base URL, query. */
  private shown(request: SentRequest): string {
    const href = this.client.url(request.path, request.query);
    const base = this.client.baseUrl;
    const path =
      base !== undefined && href.startsWith(`${base}/`)
        ? href.slice(base.length)
        : ((u) => `${u.pathname}${u.search}`)(new URL(href));
    return `${request.method} ${path}`;
  }

  /** A request whose answer must be a success, for what a scenario needs before its own. */
  async prepare<T>(request: SentRequest, what: string): Promise<{ body: T; etag?: string }> {
    const answer = await this.send(request);
    if (answer.status >= 300) {
      throw new NotPrepared(
        `could not ${what} on the ${this.name === 'target' ? 'service' : 'mock'}: it answered ${answer.status}`,
      );
    }
    return { body: answer.body as T, etag: answer.headers.etag };
  }

  /** The id of the marking named `name` on this side. */
  async markingId(name: string): Promise<string> {
    const known = this.markingIds.get(name);
    if (known !== undefined) return known;
    const { body } = await this.prepare<{ Resources?: { id?: unknown }[] }>(
      { method: 'GET', path: '/markings', query: { name, valueLimit: '0', limit: '1' } },
      `find marking "${name}"`,
    );
    const id = body.Resources?.[0]?.id;
    if (typeof id !== 'string')
      throw new NotPrepared(`marking "${name}" is not on the ${this.name}`);
    this.markingIds.set(name, id);
    return id;
  }

  /** The id of the value `value` of the marking named `marking`. */
  async valueId(marking: string, value: string): Promise<string> {
    const id = await this.markingId(marking);
    const { body } = await this.prepare<{ Resources?: { id?: unknown }[] }>(
      { method: 'GET', path: `/markings/${id}/values`, query: { name: value, limit: '1' } },
      `find value "${value}" of marking "${marking}"`,
    );
    const valueId = body.Resources?.[0]?.id;
    if (typeof valueId !== 'string') {
      throw new NotPrepared(`value "${value}" of marking "${marking}" is not on the ${this.name}`);
    }
    return valueId;
  }

  /** Creates a marking for a scenario; its id and ETag. */
  async create(body: Record<string, unknown>): Promise<{ id: string; etag?: string }> {
    const made = await this.prepare<{ id?: unknown }>(
      { method: 'POST', path: '/markings', body },
      `create marking "${String(body.name)}"`,
    );
    if (typeof made.body.id !== 'string') {
      throw new NotPrepared(
        `the ${this.name} created marking "${String(body.name)}" without an id`,
      );
    }
    this.markingIds.set(String(body.name), made.body.id);
    return { id: made.body.id, etag: made.etag };
  }

  /** Forgets the id of a marking a scenario deleted (a later one may take its name). */
  forget(name: string): void {
    this.markingIds.delete(name);
  }
}
