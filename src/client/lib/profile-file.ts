/**
 * `ProfileFile`: an Ionic SDK profile file (a "persistor") from code, in any of the three
 * formats, over the same store as `ksctl profiles` (locked, written atomically, members ksctl does
 * not know kept). Secrets stay in the object; messages never show them.
 */
import {
  type ConvertResult,
  convertProfiles,
  type DeleteResult,
  deleteProfile,
  addProfile,
  listProfiles,
  loadProfiles,
  parseAesGcmKeyHex,
  type PasswordFormatVersion,
  type PersistorKind,
  type PersistorSpec,
  type Profile,
  type ProfileRow,
  type ProfileSet,
  saveProfiles,
  useProfile,
} from '../profiles/index.js';
import { findProfile, profileOrActive } from '../profiles/profile-lookup.js';
import { UsageError } from '../../common/errors.js';
import { codeFace } from './code-words.js';

export type {
  ConvertResult,
  DeleteResult,
  PasswordFormatVersion,
  PersistorKind,
  PersistorSpec,
  Profile,
  ProfileRow,
  ProfileSet,
};

/** The AES-GCM persistor's key: 32 bytes, or 64 hex characters. */
export type AesGcmKey = Buffer | Uint8Array | string;

export class ProfileFile {
  readonly path: string;
  readonly kind: PersistorKind;
  private readonly spec: PersistorSpec;

  /** A plain JSON file (the SDKs' plaintext persistor): for tests and development only. */
  static plaintext(path: string): ProfileFile {
    return new ProfileFile({ kind: 'plaintext', path });
  }

  /**
   * A password-protected file. `version` is the format written: unset, a new file gets 1.1 and
   * an existing one keeps its own (older SDKs read only 1.0).
   */
  static password(
    path: string,
    password: string,
    options: { version?: PasswordFormatVersion } = {},
  ): ProfileFile {
    return new ProfileFile({
      kind: 'password',
      path,
      password,
      passwordVersion: options.version,
    });
  }

  /** A file sealed with an AES-256-GCM key and additional authenticated data (default ''). */
  static aesgcm(path: string, key: AesGcmKey, options: { adata?: string } = {}): ProfileFile {
    const bytes = typeof key === 'string' ? parseAesGcmKeyHex(key) : Buffer.from(key);
    if (bytes.length !== 32) throw new UsageError('the AES-GCM persistor key must be 32 bytes');
    return new ProfileFile({
      kind: 'aesgcm',
      path,
      aesgcmKey: bytes,
      aesgcmAdata: options.adata ?? '',
    });
  }

  constructor(spec: PersistorSpec) {
    if (typeof spec?.path !== 'string' || spec.path === '') {
      throw new UsageError('a profile file needs a path');
    }
    if (!['plaintext', 'password', 'aesgcm'].includes(spec.kind)) {
      throw new UsageError(`persistor kind must be plaintext, password or aesgcm`);
    }
    this.spec = { ...spec };
    this.path = spec.path;
    this.kind = spec.kind;
  }

  /** The whole file: its profiles and the active device id (an absent file is empty). */
  read(): Promise<ProfileSet> {
    return codeFace(() => loadProfiles(this.spec));
  }

  /** Replaces the whole file with `set`. */
  write(set: ProfileSet): Promise<void> {
    return codeFace(() => saveProfiles(this.spec, set));
  }

  /** The profiles without key material. */
  list(): Promise<ProfileRow[]> {
    return codeFace(() => listProfiles(this.spec));
  }

  /** A profile by device id or name (`NotFoundError` when none, `UsageError` when a name is shared). */
  get(deviceIdOrName: string): Promise<Profile> {
    return codeFace(async () => findProfile(await this.read(), deviceIdOrName, this.path));
  }

  /** The active profile, the one SDK applications use by default. */
  active(): Promise<Profile> {
    return codeFace(async () => profileOrActive(await this.read(), undefined, this.path));
  }

  /** Adds a profile; it becomes active with `setActive`, or when none is. */
  add(profile: Profile, options: { setActive?: boolean } = {}): Promise<ProfileRow> {
    return codeFace(() => addProfile(this.spec, profile, options));
  }

  use(deviceIdOrName: string): Promise<ProfileRow> {
    return codeFace(() => useProfile(this.spec, deviceIdOrName));
  }

  delete(deviceIdOrName: string): Promise<DeleteResult> {
    return codeFace(() => deleteProfile(this.spec, deviceIdOrName));
  }

  /**
   * Copies every profile and the active choice into `target`, in its format. A target file with
   * content is replaced only with `force`.
   */
  convert(target: ProfileFile, options: { force?: boolean } = {}): Promise<ConvertResult> {
    return codeFace(() => convertProfiles(this.spec, target.persistorSpec(), options));
  }

  /** The file as the profile store takes it, secrets included. */
  persistorSpec(): PersistorSpec {
    return { ...this.spec };
  }

  /** Keeps the secrets out of console.log and JSON.stringify. */
  toJSON(): { kind: PersistorKind; path: string } {
    return { kind: this.kind, path: this.path };
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `ProfileFile { kind: '${this.kind}', path: ${JSON.stringify(this.path)} }`;
  }
}
