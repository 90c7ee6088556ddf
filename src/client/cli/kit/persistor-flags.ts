/**
 * The profile-file flags shared by `enroll` and `profiles`: their definitions only, so building the
 * program at start-up loads nothing else. Resolving them is src/client/config/persistor.ts, loaded by
 * the actions.
 */
import { type Command, Option } from 'commander';
import type { PersistorFlags } from '../../config/persistor.js';
import {
  type PasswordFormatVersion,
  PERSISTOR_KINDS,
  type PersistorKind,
} from '../../profiles/types.js';

const VERSIONS = ['1.0', '1.1'] as const;

/** `--persistor`, `--persistor-path`, … on a command. */
export function addPersistorOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option(
        '--persistor <kind>',
        'profile file format (env KSCTL_PERSISTOR; default plaintext)',
      ).choices(PERSISTOR_KINDS),
    )
    .option(
      '--persistor-path <path>',
      'profile file (env KSCTL_PERSISTOR_PATH; default ~/.ionicsecurity/profiles.pt|pw|aesgcm; at most 64 MiB, env KSCTL_MAX_INPUT_MIB)',
    )
    .option(
      '--persistor-password-file <path>',
      'password of a password persistor, or - for stdin (env KSCTL_PERSISTOR_PASSWORD)',
    )
    .addOption(
      new Option(
        '--persistor-version <version>',
        'password file format to write (1.1 for new files unless 1.0)',
      ).choices(VERSIONS),
    )
    .option(
      '--persistor-aesgcm-key-file <path>',
      'aesgcm persistor key, 64 hex characters, or - for stdin (env KSCTL_PERSISTOR_AESGCM_KEY)',
    )
    .option(
      '--persistor-aesgcm-adata <text>',
      'aesgcm additional authenticated data (env KSCTL_PERSISTOR_AESGCM_ADATA)',
    );
}

/** The source persistor flags as commander names them. */
export interface PersistorOptionValues {
  persistor?: PersistorKind;
  persistorPath?: string;
  persistorPasswordFile?: string;
  persistorVersion?: PasswordFormatVersion;
  persistorAesgcmKeyFile?: string;
  persistorAesgcmAdata?: string;
}

export function persistorFlags(options: PersistorOptionValues): PersistorFlags {
  return {
    persistor: options.persistor,
    path: options.persistorPath,
    passwordFile: options.persistorPasswordFile,
    version: options.persistorVersion,
    aesgcmKeyFile: options.persistorAesgcmKeyFile,
    aesgcmAdata: options.persistorAesgcmAdata,
  };
}
