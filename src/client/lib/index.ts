/**
 * `ksctl` as a library: typed clients for the markings API, enrollment, profile files and device
 * key requests, over the code the CLI runs. Importing it loads no mock, no prompts and no
 * terminal output; the mock is `ksctl/mock`.
 */
export {
  type ApplyOptions,
  type ExportOptions,
  type FilterOptions,
  type ListMarkingsOptions,
  type ListPage,
  type ListValuesOptions,
  Listing,
  MarkingsClient,
  type MarkingsClientOptions,
  type Plan,
  type PlannedMarking,
  type PlanOptions,
  type PlanSource,
  type RunReport,
} from './markings.js';
export type { ConnectionOptions } from './connection.js';
export { enroll, type EnrollOptions, type PortalSignIn, type TokenPair } from './enrollment.js';
export {
  type AesGcmKey,
  type ConvertResult,
  type DeleteResult,
  type PasswordFormatVersion,
  type PersistorKind,
  type PersistorSpec,
  type Profile,
  ProfileFile,
  type ProfileRow,
  type ProfileSet,
} from './profile-file.js';
export {
  type Attributes,
  DEVICE_API_VERSIONS,
  type DeviceAnswer,
  type DeviceApiVersion,
  DeviceClient,
  type DeviceClientOptions,
  type DeviceKey,
  type DeviceProfile,
  type ItemRefusal,
  type KeyChange,
  type KeyRequest,
  type ModifyAnswer,
} from './device.js';
export {
  AuthError,
  ConflictError,
  type ErrorDetail,
  InputError,
  InternalError,
  InterruptedError,
  isKsctlError,
  KsctlError,
  NotFoundError,
  ServiceError,
  UnreachableError,
  UsageError,
} from '../../common/errors.js';
export type {
  BulkMarkingItem,
  Marking,
  MarkingInput,
  MarkingListQuery,
  MarkingUpdate,
  MarkingValue,
  ValueInput,
  ValueListQuery,
  ValueUpdate,
} from '../../common/markings/wire.js';
export { VERSION } from '../../common/package-root.js';
