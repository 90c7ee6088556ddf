/**
 * Stored markings and values in the public API's wire form, with the changedBy principal object
 * of each user name (built once per name; its id is stable for a name within the tenant).
 */
import { createHash } from 'node:crypto';
import type { ChangedBy, Marking, MarkingValue } from '../../../common/markings/wire.js';
import { valueCountOf } from './deferred.js';
import type { StoredMarking, StoredValue } from './stored.js';

/**
 * The members every value, or every marking, carries alike: one frozen object shared by every
 * answer (nothing writes to an answer; a 100,000-value answer made 100,000 copies of each).
 */
const VALUE_POLICIES = Object.freeze({ referenced: 0, relevant: 0 });
const MARKING_POLICIES = Object.freeze({ referenced: 0 });

export class WireForm {
  /** `changedBy` of each principal name, built once and shared (frozen) by every answer. */
  private readonly principals = new Map<string, ChangedBy>();

  constructor(private readonly tenantId: string) {}

  /**
   * A marking with `values` (in wire form, ordered and cut to the value limit), or without any.
   */
  marking(m: StoredMarking, values: MarkingValue[] | undefined): Marking {
    const detail: Marking['detail'] = {
      description: m.description,
      valueCount: valueCountOf(m),
      dataType: 'string',
      default: false,
      defaultVersion: m.defaultVersion,
      policies: MARKING_POLICIES,
    };
    if (values !== undefined) detail.values = values;
    return {
      id: m.id,
      name: m.name,
      public: m.public,
      adminOnly: m.adminOnly,
      defaultValue: m.defaultValue,
      detail,
      _createdTs: m.createdTs,
      _createdBy: m.createdBy,
      _updatedTs: m.updatedTs,
      _updatedBy: m.updatedBy,
      _version: m.version,
      changedBy: this.changedBy(m.updatedBy),
    };
  }

  value(markingId: string, v: StoredValue): MarkingValue {
    return {
      id: v.id,
      markingId,
      name: v.name,
      description: v.description,
      _createdTs: v.createdTs,
      _createdBy: v.createdBy,
      _updatedTs: v.updatedTs,
      _updatedBy: v.updatedBy,
      _version: v.version,
      changedBy: this.changedBy(v.updatedBy),
      policies: VALUE_POLICIES,
    };
  }

  /** The public API's principal object; its id is stable for a name within the tenant. */
  private changedBy(userName: string): ChangedBy {
    let principal = this.principals.get(userName);
    if (principal === undefined) {
      const id = createHash('sha256')
        .update(`${this.tenantId}/${userName}`)
        .digest('hex')
        .slice(0, 24);
      principal = Object.freeze({
        tenantId: this.tenantId,
        id,
        userName,
        display: userName,
        exists: true,
      });
      this.principals.set(userName, principal);
    }
    return principal;
  }
}
