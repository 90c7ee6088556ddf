import {
  AuthError,
  ConflictError,
  type ErrorDetail,
  type Hint,
  InputError,
  type KsctlError,
  NotFoundError,
  ServiceError,
} from '../../common/errors.js';

interface ParsedErrorBody {
  message?: string;
  code?: number;
  cid?: string;
  details: ErrorDetail[];
}

/**
 * Reads both error shapes of docs/design.md 1.4: ksctl's `{error:{cid,code,message,details}}` and the
 * public Ionic management-API `{status, code, error, detail:{message}, source:{cid}}`.
 */
export function parseErrorBody(body: unknown): ParsedErrorBody {
  if (typeof body !== 'object' || body === null) return { details: [] };
  const b = body as Record<string, unknown>;
  if (typeof b.error === 'object' && b.error !== null) {
    const e = b.error as Record<string, unknown>;
    const details = Array.isArray(e.details)
      ? e.details
          .filter((d): d is Record<string, unknown> => typeof d === 'object' && d !== null)
          .map((d) => ({ path: String(d.path ?? ''), message: String(d.message ?? '') }))
      : [];
    return {
      message: typeof e.message === 'string' ? e.message : undefined,
      code: typeof e.code === 'number' ? e.code : undefined,
      cid: typeof e.cid === 'string' ? e.cid : undefined,
      details,
    };
  }
  const detail = b.detail as Record<string, unknown> | undefined;
  const source = b.source as Record<string, unknown> | undefined;
  const message =
    typeof detail?.message === 'string'
      ? detail.message
      : typeof b.error === 'string'
        ? b.error
        : typeof b.message === 'string'
          ? b.message
          : undefined;
  return {
    message,
    code: typeof b.code === 'number' ? b.code : undefined,
    cid: typeof source?.cid === 'string' ? source.cid : undefined,
    details: [],
  };
}

const STATUS_HINTS: Record<number, Hint> = {
  401: {
    cli: 'check the credentials: `ksctl context show`, --token-file, or KSCTL_TOKEN',
    code: "check the credentials: the client's token or basic option",
  },
  403: 'the credentials are valid but lack a scope this operation needs',
  412: 'the marking changed since it was read; read it again and retry',
  413: 'the request is too large; send fewer items or values at once',
  415: 'the service expects application/json',
  429: 'the service is rate limiting; wait a moment and retry',
};

/**
 * What came back, in a few words for an error message: "an HTML page titled "502 Bad Gateway"",
 * "JSON that breaks off or does not parse (120 bytes)". Never quotes a JSON body: it may hold
 * secrets; a page title is cut short and stripped of control characters.
 */
export function describeAnswer(body: unknown, contentType: string | undefined): string {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  if (body === undefined) return 'an empty body';
  if (typeof body !== 'string') {
    return Array.isArray(body) ? 'a JSON array' : `a JSON ${body === null ? 'null' : typeof body}`;
  }
  const bytes = Buffer.byteLength(body);
  if (type?.includes('html') || /^\s*<(!doctype|html)/i.test(body)) {
    const title = /<title[^>]*>([^<]*)<\/title>/i.exec(body)?.[1];
    const shown = title
      ?.replace(/[\p{Cc}\s]+/gu, ' ')
      .trim()
      .slice(0, 80);
    return shown ? `an HTML page titled ${JSON.stringify(shown)}` : `an HTML page (${bytes} bytes)`;
  }
  if (type?.includes('json') || /^\s*[[{]/.test(body)) {
    return `JSON that breaks off or does not parse (${bytes} bytes)`;
  }
  return `${type ?? 'a body'} of ${bytes} bytes`;
}

/** The typed error for an HTTP error answer, with the exit codes of docs/design.md 5. */
export function errorFromAnswer(
  status: number,
  body: unknown,
  requestCid: string,
  what: string,
  /** Where the answer came from and its type, to describe an answer that is not an error body. */
  received?: { url: string; contentType?: string },
): KsctlError {
  const parsed = parseErrorBody(body);
  const text =
    parsed.message ??
    (received === undefined
      ? `the service answered ${status}`
      : `${received.url} answered HTTP ${status} with ${describeAnswer(body, received.contentType)}`);
  const message = `${what}: ${text}${parsed.code !== undefined ? ` (${parsed.code})` : ''}`;
  const options = {
    status,
    serviceCode: parsed.code,
    conversationId: parsed.cid ?? requestCid,
    details: parsed.details,
    hint: STATUS_HINTS[status],
  };
  if (status === 401 || status === 403) return new AuthError(message, options);
  if (status === 404) return new NotFoundError(message, options);
  if (status === 409 || status === 412) return new ConflictError(message, options);
  if (status >= 400 && status < 500 && ![408, 417, 424, 429, 451].includes(status)) {
    return new InputError(message, options);
  }
  return new ServiceError(message, options);
}

/** The base URL names a tenant: `…/v2/TENANT`, where the markings API lives. */
const TENANT_PATH = /\/v2\/[^/]+\/?$/;

export function namesTenant(baseUrl: string): boolean {
  return TENANT_PATH.test(new URL(baseUrl).pathname);
}

/**
 * A 404 from a base URL without `/v2/TENANT` is most likely the URL, not the marking: the hint
 * says so (the error keeps its class, message and conversation id).
 */
/**
 * A 401 whose credentials came from where a user may not look (an environment variable such as
 * KSCTL_TOKEN) says so in its hint, as the cause to check first.
 */
export function withCredentialsSource(error: KsctlError, source: string): KsctlError {
  if (!(error instanceof AuthError) || error.status !== 401) return error;
  const what = source === 'KSCTL_TOKEN' ? 'the token' : 'the credentials';
  return new AuthError(error.message, {
    conversationId: error.conversationId,
    status: error.status,
    serviceCode: error.serviceCode,
    details: error.details,
    hint: `${what} came from ${source} in the environment: check it or unset it`,
  });
}

export function withTenantHint(error: KsctlError, baseUrl: string): KsctlError {
  if (!(error instanceof NotFoundError) || namesTenant(baseUrl)) return error;
  return new NotFoundError(error.message, {
    conversationId: error.conversationId,
    status: error.status,
    serviceCode: error.serviceCode,
    details: error.details,
    hint: `the base URL ${baseUrl} does not end in /v2/TENANT, where the markings API lives`,
  });
}
