/**
 * Which CA certificates a command trusts for TLS: `--ca-file` > `KSCTL_CA_FILE` > the context's
 * `caFile` (the "mock" context's is the mock's local CA, written by `mock serve --tls`) > the
 * system's. A file given replaces the system's CAs for that command, as curl's --cacert and
 * VAULT_CACERT do: a certificate that does not chain to it is refused, never ignored.
 */
import { InputError, KsctlError, UsageError } from '../../common/errors.js';
import { readBoundedFile } from '../../common/files/bounded-read.js';
import { fileReason } from '../../common/files/fs-errors.js';
import type { ContextConfig } from './store.js';

/** A bundle of a few hundred CAs is under a megabyte. */
const CA_FILE_MAX_BYTES = 4 * 1024 * 1024;

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/;

export interface TrustOptions {
  /** From --ca-file. */
  caFile?: string;
}

/** Where the CA file in force comes from, as messages name it, and its path; undefined: none. */
export function caFileSetting(
  globals: TrustOptions,
  env: NodeJS.ProcessEnv,
  contextName: string | undefined,
  context: ContextConfig,
): { path: string; source: string } | undefined {
  if (globals.caFile !== undefined) return { path: globals.caFile, source: '--ca-file' };
  if (env.KSCTL_CA_FILE) return { path: env.KSCTL_CA_FILE, source: 'KSCTL_CA_FILE' };
  const stored: unknown = context.caFile;
  if (stored === undefined) return undefined;
  if (typeof stored !== 'string' || stored === '') {
    throw new UsageError(`the CA file stored in context "${contextName}" is not a path`, {
      hint: `set it again: ksctl context set ${contextName ?? 'NAME'} ca-file PATH`,
    });
  }
  return { path: stored, source: `context "${contextName}"` };
}

/** The PEM text of the CA file in force (caFileSetting), or undefined for the system's CAs. */
export async function trustedCas(
  globals: TrustOptions,
  env: NodeJS.ProcessEnv,
  contextName: string | undefined,
  context: ContextConfig,
): Promise<string | undefined> {
  const setting = caFileSetting(globals, env, contextName, context);
  return setting === undefined ? undefined : readCaFile(setting.path, setting.source);
}

/** The certificates of a CA file, checked to hold at least one PEM certificate. */
export async function readCaFile(path: string, source: string): Promise<string> {
  let text: string;
  try {
    text = (await readBoundedFile(path, { bytes: CA_FILE_MAX_BYTES, what: 'CA file' })).toString(
      'utf8',
    );
  } catch (error) {
    if (error instanceof KsctlError) throw error;
    throw new UsageError(`cannot read the CA file ${path} (from ${source}): ${fileReason(error)}`, {
      hint: source.startsWith('context')
        ? 'for the mock, start `ksctl mock serve --tls` again (it writes the file); else fix the path with `ksctl context set NAME ca-file PATH`'
        : 'name a PEM file of CA certificates',
    });
  }
  if (!PEM_CERTIFICATE.test(text)) {
    throw new InputError(`the CA file ${path} (from ${source}) holds no PEM certificate`, {
      hint: 'give the CA certificates as PEM text (-----BEGIN CERTIFICATE-----)',
    });
  }
  return text;
}
