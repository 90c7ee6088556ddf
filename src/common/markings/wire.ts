/**
 * Wire types of the Markings API (docs/design.md section 1), defined once and imported by both the
 * client (src/client/markings, src/client/apply) and the mock (src/mock/markings), so the two cannot drift. The
 * other services' wire types sit beside their code: src/common/enrollment/wire.ts, src/common/device/wire.ts,
 * src/common/mock/wire.ts (the mock's own endpoints); the error answer every service gives is in
 * src/client/api/errors.ts.
 */

import type { ListFilter } from './filters.js';

// ---- Markings (docs/design.md 1.1) ----

/**
 * The principal that made the last change, as the public Ionic API returns it. The members marked
 * "public API" below are sent by the mock and by Ionic services; ksctl reads answers without
 * them too (other services may leave them out), so they are optional here.
 */
export interface ChangedBy {
  tenantId: string;
  id: string;
  userName: string;
  display: string;
  exists: boolean;
}

export interface MarkingValue {
  id: string;
  markingId: string;
  name: string;
  description: string;
  _createdTs: number;
  _updatedTs: number;
  _version: number;
  /** Public API. */
  _createdBy?: string;
  /** Public API. */
  _updatedBy?: string;
  /** Public API. */
  changedBy?: ChangedBy;
  /** Public API. */
  policies?: { referenced: number; relevant: number };
}

export interface MarkingDetail {
  description: string;
  valueCount: number;
  /** Left out entirely when the request had `valueLimit=0`. Ordered by value name. */
  values?: MarkingValue[];
  /** Public API: always `"string"`. */
  dataType?: 'string';
  /** Public API: always `false`. */
  default?: boolean;
  /** Public API: the `_version` at which `defaultValue` was last set, or 0. */
  defaultVersion?: number;
  /** Public API. */
  policies?: { referenced: number };
}

export interface Marking {
  id: string;
  name: string;
  public: boolean;
  adminOnly: boolean;
  defaultValue: string | null;
  detail: MarkingDetail;
  _createdTs: number;
  _createdBy: string;
  _updatedTs: number;
  _updatedBy: string;
  _version: number;
  /** Public API. */
  changedBy?: ChangedBy;
}

export interface ListEnvelope<T> {
  totalResults: number;
  skip: number;
  limit: number;
  /** SCIM paging members, present when the request paged with startIndex/count. */
  startIndex?: number;
  itemsPerPage?: number;
  Resources: T[];
}

/** A value in a create or update body: matched by `id` when given, else by `name`. */
export interface ValueInput {
  id?: string;
  name: string;
  description?: string;
}

export interface MarkingInput {
  name: string;
  public?: boolean;
  adminOnly?: boolean;
  defaultValue?: string | null;
  detail?: {
    description?: string;
    values?: ValueInput[];
  };
}

/** Update Marking body: scalar fields are partial; `detail.values`, when present, is the complete set. */
export interface MarkingUpdate {
  name?: string;
  public?: boolean;
  adminOnly?: boolean;
  defaultValue?: string | null;
  detail?: {
    description?: string;
    values?: ValueInput[];
  };
}

/** An item of Create or Update Multiple: with `id` it updates that marking, without it creates one. */
export type BulkMarkingItem = (MarkingUpdate & { id: string }) | MarkingInput;

export interface ValueUpdate {
  name?: string;
  description?: string;
}

/**
 * A List Markings request: paging, the named shortcuts, and any further filter terms of the
 * grammar (src/common/markings/filters.ts), all sent to the service, never applied locally.
 */
export interface MarkingListQuery {
  skip?: number;
  limit?: number;
  valueLimit?: number;
  name?: string;
  name__contains?: string;
  name__startswith?: string;
  public?: boolean;
  filter?: ListFilter;
}

export interface ValueListQuery {
  skip?: number;
  limit?: number;
  name?: string;
  name__contains?: string;
  filter?: ListFilter;
}

export const PAGE_LIMIT_DEFAULT = 100;
export const PAGE_LIMIT_MAX = 1000;
export const BULK_MAX_ITEMS = 1000;
export const BODY_MAX_BYTES = 32 * 1024 * 1024;
export const VALUES_MAX_PER_MARKING = 100_000;
export const NAME_MAX_LENGTH = 256;
export const DESCRIPTION_MAX_LENGTH = 4096;

// ---- Errors (docs/design.md 1.4; the answer's shape is in src/client/api/errors.ts) ----

/** Numeric codes of the markings errors (the interface leaves them open; these are the mock's). */
export const MarkingsErrorCode = {
  badRequest: 40000,
  validation: 40010,
  unauthorized: 40100,
  forbidden: 40300,
  notFound: 40400,
  methodNotAllowed: 40500,
  requestTimeout: 40800,
  duplicateName: 40910,
  preconditionFailed: 41200,
  payloadTooLarge: 41300,
  unsupportedMediaType: 41500,
  expectationFailed: 41700,
  tooManyRequests: 42900,
  headersTooLarge: 43100,
  internal: 50000,
  unavailable: 50300,
} as const;

// ---- Scopes (docs/design.md 1.3) ----

export const SCOPES = [
  'markings:read',
  'markings:create',
  'markings:update',
  'markings:delete',
] as const;
export type Scope = (typeof SCOPES)[number];
