import { readFile } from 'node:fs/promises';
import { errorFromAnswer } from '../../api/errors.js';
import { UsageError } from '../../errors.js';
import { readAll } from '../../output/io.js';
import type { CommandContext } from '../context.js';
import type { ApiOptions } from './api.js';

function pairs(texts: string[] | undefined, separator: string, flag: string): [string, string][] {
  return (texts ?? []).map((text) => {
    const at = text.indexOf(separator);
    if (at <= 0) throw new UsageError(`${flag} "${text}" is not in the form name${separator}value`);
    return [text.slice(0, at).trim(), text.slice(at + 1).trim()];
  });
}

const EVERY_ERROR_STATUS = Array.from({ length: 200 }, (_, i) => 400 + i);

export async function api(
  ctx: CommandContext,
  methodText: string,
  path: string,
  o: ApiOptions,
): Promise<void> {
  const method = methodText.toUpperCase();
  if (!/^[A-Z]+$/.test(method)) throw new UsageError(`"${methodText}" is not an HTTP method`);
  if (!path.startsWith('/') && !/^https?:\/\//.test(path)) {
    throw new UsageError(`the path must start with / or be a full URL, not "${path}"`);
  }
  let body: string | undefined;
  if (o.input !== undefined) {
    try {
      body = o.input === '-' ? await readAll(ctx.io.stdin) : await readFile(o.input, 'utf8');
    } catch (error) {
      throw new UsageError(
        `cannot read ${o.input}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
  }
  const client = await ctx.client();
  const answer = await client.request<unknown>(method, path, {
    query: Object.fromEntries(pairs(o.query, '=', '--query')),
    headers: Object.fromEntries(
      pairs(o.header, ':', '--header').map(([k, v]) => [k.toLowerCase(), v]),
    ),
    body,
    okStatuses: EVERY_ERROR_STATUS,
    what: `${method} ${path}`,
  });
  if (o.include) {
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
  if (answer.status >= 400)
    throw errorFromAnswer(answer.status, answer.body, answer.conversationId, `${method} ${path}`);
}
