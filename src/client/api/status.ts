import { type KsctlError, isKsctlError, UnreachableError } from '../../common/errors.js';
import type { ApiClient } from './client.js';
import { listProblem, markingProblem } from './shapes.js';
import { INTROSPECTION_PATH, type TokenIntrospection } from '../../common/http/introspection.js';

/** What `ksctl status` learns from the service. */
export interface ServiceCheck {
  /** The service answered (whatever it said). */
  answered: boolean;
  /** Round trip of the probe, when it answered. */
  ms?: number;
  /** The credentials may list markings (false: valid, but without markings:read). */
  canRead?: boolean;
  /** Who the credentials are, when the service says. */
  principal?: string;
  /** Their scopes, when the service says (undefined: it does not introspect tokens). */
  scopes?: string[];
  tenant?: string;
  /** What is wrong, if anything: its exit code is the command's. */
  problem?: KsctlError;
}

/**
 * Two cheap reads: a one-item listing (does the service answer, how fast, may these credentials
 * read), then token introspection (who, which scopes). Nothing is written, nothing retried: a
 * status is about now.
 */
export async function checkService(client: ApiClient, token?: string): Promise<ServiceCheck> {
  const started = performance.now();
  try {
    const answer = await client.request('GET', '/markings', {
      query: { limit: 1, valueLimit: 0 },
      okStatuses: [403],
      what: 'list markings',
      // The same check as `markings list`: a 2xx that is not a listing is no service answering.
      expect: listProblem(markingProblem),
    });
    const check: ServiceCheck = {
      answered: true,
      ms: Math.round(performance.now() - started),
      canRead: answer.status !== 403,
    };
    return { ...check, ...(await introspect(client, token)) };
  } catch (error) {
    if (!isKsctlError(error)) throw error;
    const answered = !(error instanceof UnreachableError);
    return {
      answered,
      ms: answered ? Math.round(performance.now() - started) : undefined,
      problem: error,
    };
  }
}

async function introspect(client: ApiClient, token?: string): Promise<Partial<ServiceCheck>> {
  const origin = new URL(client.url('/')).origin;
  try {
    const answer = await client.request<TokenIntrospection>('POST', origin + INTROSPECTION_PATH, {
      body: token === undefined ? '' : new URLSearchParams({ token }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      okStatuses: [404, 405, 501],
      what: 'introspect the token',
    });
    if (answer.status !== 200 || typeof answer.body !== 'object' || answer.body === null) return {};
    const body = answer.body;
    if (body.active !== true) return {};
    return {
      principal: body.username ?? body.sub,
      scopes: (body.scope ?? '').split(' ').filter((s) => s !== ''),
      tenant: body.tenant,
    };
  } catch {
    // The listing answered already; a service without introspection only leaves scopes unknown.
    return {};
  }
}
