/**
 * The data held in an Ionic SDK profile file (a "persistor"), and how to reach one.
 * Field names follow the SDKs' JSON so the mapping stays obvious (docs/design.md section 4).
 */

/** One Secure Enrollment Profile (SEP): a device enrolled in one keyspace. */
export interface Profile {
  /** Optional when reading: the vendor's sample persistors write profiles without one. */
  name?: string;
  /** `ABcd.1.<uuid>`: the keyspace is the part before the first dot. */
  deviceId: string;
  /** API URL of the tenant, e.g. `https://api.ionic.com`. */
  server: string;
  /** SEP.CD:IDC, 32 bytes. */
  aesCdIdcKey: Buffer;
  /** SEP.CD:KS, 32 bytes. */
  aesCdEiKey: Buffer;
  /** Epoch seconds; optional when reading, as `name`. */
  creationTimestamp?: number;
  /** Members of the profile ksctl does not know, kept as read and written back. */
  extra?: Record<string, unknown>;
}

export interface ProfileSet {
  /** Empty when no profile is active. */
  activeDeviceId: string;
  profiles: Profile[];
  /** Top-level members of the file ksctl does not know, kept as read and written back. */
  extra?: Record<string, unknown>;
}

export type PersistorKind = 'plaintext' | 'password' | 'aesgcm';

export const PERSISTOR_KINDS: readonly PersistorKind[] = ['plaintext', 'password', 'aesgcm'];

export type PasswordFormatVersion = '1.0' | '1.1';

/** Which file, in which format, with which secret. */
export interface PersistorSpec {
  kind: PersistorKind;
  path: string;
  /** `password` kind: at least 6 characters. */
  password?: string;
  /** `aesgcm` kind: 32 bytes (see `parseAesGcmKeyHex`). */
  aesgcmKey?: Buffer;
  /** `aesgcm` kind: the additional authenticated data the file was written with. */
  aesgcmAdata?: string;
  /**
   * `password` kind: the format to write. Unset: a new file gets 1.1, an updated file keeps the
   * version it had, so applications on older SDKs that read it keep working.
   */
  passwordVersion?: PasswordFormatVersion;
  /** Bytes the file may hold when read (default 64 MiB; KSCTL_MAX_INPUT_MIB raises it). */
  maxBytes?: number;
}

export function emptyProfileSet(): ProfileSet {
  return { activeDeviceId: '', profiles: [] };
}

/** The keyspace of a device id: the part before the first dot. */
export function keyspaceOf(deviceId: string): string {
  const dot = deviceId.indexOf('.');
  return dot < 0 ? deviceId : deviceId.slice(0, dot);
}
