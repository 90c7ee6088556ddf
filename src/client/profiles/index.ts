/** Ionic SDK compatible profile files (docs/design.md section 4): formats, safe store, operations. */
export { parseAesGcmKeyHex } from './aesgcm-format.js';
export type { DecodedProfileFile } from './codec.js';
export { decodeProfileFile, encodeProfileFile } from './codec.js';
export type { ConvertResult } from './convert.js';
export { convertProfiles } from './convert.js';
export { defaultPersistorPath, PERSISTOR_DIR_NAME, PERSISTOR_FILE_NAMES } from './default-paths.js';
export type { DeleteResult, ProfileDetails, ProfileRow } from './operations.js';
export {
  addProfile,
  deleteProfile,
  listProfiles,
  profileLabel,
  REDACTED,
  showProfile,
  storeProfile,
  useProfile,
} from './operations.js';
export { checkProfilePassword, PASSWORD_MIN_LENGTH } from './password-format.js';
export { PROFILE_NAME_MAX_LENGTH, profileNameProblem } from './profile-name.js';
export type { HeldProfiles, ProfileSetMutation } from './store.js';
export { loadProfiles, saveProfiles, updateProfiles, withProfilesHeld } from './store.js';
export type {
  PasswordFormatVersion,
  PersistorKind,
  PersistorSpec,
  Profile,
  ProfileSet,
} from './types.js';
export { emptyProfileSet, keyspaceOf, PERSISTOR_KINDS } from './types.js';
