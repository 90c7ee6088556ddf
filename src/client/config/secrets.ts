/**
 * The one reader of secrets: a file (`-` for standard input), else an environment variable, else
 * a prompt that never echoes on a terminal, else a usage error naming the flag. Secrets are never
 * taken from plain flags, and a message never shows one.
 */
import type { Readable } from 'node:stream';
import { KsctlError, UsageError } from '../../common/errors.js';
import {
  readBoundedFile,
  readBoundedStream,
  SECRET_MAX_BYTES,
} from '../../common/files/bounded-read.js';
import { fileReason } from '../../common/files/fs-errors.js';

/** Reads a secret from a file, or from standard input when the path is `-`; at most 64 KiB. */
export async function readSecretFile(path: string, stdin: Readable, what: string): Promise<string> {
  let text: string;
  const limit = { bytes: SECRET_MAX_BYTES, what: `${what} file`, dash: true };
  try {
    const bytes =
      path === '-'
        ? await readBoundedStream(stdin, 'standard input', limit)
        : await readBoundedFile(path, limit);
    text = bytes.toString('utf8');
  } catch (error) {
    if (error instanceof KsctlError) throw error;
    throw new UsageError(`cannot read the ${what} from ${path}: ${fileReason(error)}`);
  }
  const value = text.trim();
  if (value === '')
    throw new UsageError(`the ${what} in ${path === '-' ? 'standard input' : path} is empty`);
  return value;
}

/** Who a secret is asked of: standard input for `-`, and a terminal's prompt when there is one. */
export interface SecretAsker {
  readonly io: { readonly stdin: Readable };
  canPrompt(): boolean;
  readonly prompter: { secret(message: string): Promise<string> };
}

export interface SecretSource {
  file: string | undefined;
  envValue: string | undefined;
  flag: string;
  envName: string | undefined;
  what: string;
  question: string;
  /** Asked on a terminal: ask again and compare (a new secret). */
  confirm?: boolean;
  /** Throws when the secret cannot be used (a password too short): before it is asked again. */
  check?: (value: string) => unknown;
}

/** A secret from its file flag, the environment, or a prompt that never echoes. */
export async function readSecret(asker: SecretAsker, source: SecretSource): Promise<string> {
  if (source.file !== undefined) return readSecretFile(source.file, asker.io.stdin, source.what);
  const fromEnv = source.envValue?.trim();
  if (fromEnv) return fromEnv;
  if (asker.canPrompt()) {
    const answer = (await asker.prompter.secret(source.question)).trim();
    if (answer !== '') source.check?.(answer);
    if (answer !== '' && source.confirm === true) {
      const again = (await asker.prompter.secret(`The ${source.what} again, to confirm:`)).trim();
      if (again !== answer) {
        throw new UsageError(`the two entries of the ${source.what} differ; nothing was written`);
      }
    }
    if (answer !== '') return answer;
  }
  throw new UsageError(`the ${source.what} is missing`, {
    hint: `pass ${source.flag} PATH (or - for stdin)${source.envName ? ` or set ${source.envName}` : ''}; secrets are never taken from plain flags`,
  });
}
