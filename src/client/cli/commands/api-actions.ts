import { errorFromAnswer, withCredentialsSource } from '../../api/errors.js';
import { redactUrl } from '../../../common/http/redact.js';
import { HTTP_METHODS } from '../../../common/http/methods.js';
import { fromEnvironment } from '../../config/settings.js';
import { KsctlError, UsageError } from '../../../common/errors.js';
import { fileError } from '../../../common/files/fs-errors.js';
import type { CommandContext } from '../kit/command-context.js';

export interface ApiOptions {
  query?: string[];
  header?: string[];
  input?: string;
  include?: boolean;
}

function pairs(texts: string[] | undefined, separator: string, flag: string): [string, string][] {
  return (texts ?? []).map((text, index) => {
    const at = text.indexOf(separator);
    if (at <= 0) {
      // A header may carry a credential, so it is named by its place, never shown.
      const which = flag === '--header' ? `${flag} number ${index + 1}` : `${flag} "${text}"`;
      throw new UsageError(`${which} is not in the form name${separator}value`);
    }
    return [text.slice(0, at).trim(), text.slice(at + 1).trim()];
  });
}

/** `--query` pairs as sent: a key given more than once is sent each time (a filter term each). */
function queryOf(given: [string, string][]): Record<string, string[]> {
  const query: Record<string, string[]> = {};
  for (const [key, value] of given) (query[key] ??= []).push(value);
  return query;
}

/**
 * Header names are HTTP tokens; values one line of printable ASCII. A header may carry a
 * credential, so a bad one is named by its place, never shown.
 */
function headers(texts: string[] | undefined): Record<string, string> {
  return Object.fromEntries(
    pairs(texts, ':', '--header').map(([name, value], index) => {
      const problem = !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)
        ? 'its name is not a header name'
        : !/^[\t\x20-\x7e]*$/.test(value)
          ? 'its value is not one line of printable ASCII'
          : undefined;
      if (problem) throw new UsageError(`--header number ${index + 1} is not valid: ${problem}`);
      return [name.toLowerCase(), value];
    }),
  );
}

/** A full URL must be the service's own: the credentials go with every request. */
function refuseOtherOrigin(url: string, baseUrl: string): void {
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    throw new UsageError(`"${url}" is not a valid URL`);
  }
  const service = new URL(baseUrl).origin;
  if (origin !== service) {
    throw new UsageError(
      `${origin} is not the service (${service}); ksctl api sends the credentials only there`,
      { hint: 'give a path under the base URL, or point --base-url or --context at that service' },
    );
  }
}

const EVERY_ERROR_STATUS = Array.from({ length: 200 }, (_, i) => 400 + i);

export async function api(
  ctx: CommandContext,
  methodText: string,
  path: string,
  options: ApiOptions,
): Promise<void> {
  const method = methodText.toUpperCase();
  if (!HTTP_METHODS.includes(method)) {
    throw new UsageError(`"${methodText}" is not an HTTP method`, {
      hint: `use one of ${HTTP_METHODS.join(', ')}`,
    });
  }
  // `markings/x` is a path under the base URL, as gh api takes it.
  if (!path.startsWith('/') && !/^https?:\/\//.test(path)) path = `/${path}`;
  let body: string | undefined;
  if (options.input !== undefined) {
    const { inputLimit, readBoundedFile } = await import('../../../common/files/bounded-read.js');
    const limit = { ...inputLimit(ctx.env, 'request body (--input)'), dash: true };
    try {
      body =
        options.input === '-'
          ? await ctx.readStdin('the request body', limit)
          : (await readBoundedFile(options.input, limit)).toString('utf8');
    } catch (error) {
      if (error instanceof KsctlError) throw error;
      throw fileError('read the --input file', options.input, error);
    }
  }
  const connection = await ctx.connection();
  if (/^https?:\/\//.test(path)) refuseOtherOrigin(path, connection.baseUrl);
  const client = await ctx.client(connection);
  // Messages name the request; a credential in its URL stays out of them.
  const what = `${method} ${redactUrl(path)}`;
  const answer = await client.request<unknown>(method, path, {
    query: queryOf(pairs(options.query, '=', '--query')),
    headers: headers(options.header),
    body,
    okStatuses: EVERY_ERROR_STATUS,
    what,
  });
  if (options.include) {
    ctx.io.stderr.write(`HTTP ${answer.status}\n`);
    for (const [k, v] of Object.entries(answer.headers))
      ctx.io.stderr.write(`${k}: ${String(v)}\n`);
    ctx.io.stderr.write('\n');
  }
  if (answer.body !== undefined) {
    ctx.io.stdout.write(
      typeof answer.body === 'string'
        ? `${answer.body}\n`
        : `${JSON.stringify(answer.body, null, 2)}\n`,
    );
  }
  // The answer is printed either way; an error status still sets the exit code.
  if (answer.status >= 400) {
    const error = errorFromAnswer(answer.status, answer.body, answer.conversationId, what);
    const from = connection.sources.auth;
    throw from !== undefined && fromEnvironment(from) ? withCredentialsSource(error, from) : error;
  }
}
