import { randomBytes } from 'node:crypto';
import { type JournalEntry, type RequestJournal, SCOPES, type Scope } from '../../api/wire.js';
import { CID_MAX_SKEW_MS } from '../../device/cid.js';
import { KeyStore, RecentCids } from '../device/store.js';
import { EnrollmentState } from '../enrollment/state.js';
import { FaultSet } from '../admin/faults.js';
import { IdGenerator } from './ids.js';
import { Journal } from './request-journal.js';
import { MarkingsStore } from '../markings/store.js';

export interface Principal {
  name: string;
  scopes: ReadonlySet<Scope>;
  /** May use the /_mock admin endpoints. */
  admin: boolean;
  /** Restricted to one tenant when set. */
  tenant?: string;
}

export interface Tenant {
  id: string;
  markings: MarkingsStore;
}

export interface MockUser {
  name: string;
  tenant: string;
  enabled: boolean;
  password?: string;
  email?: string;
}

export interface MockKeyspace {
  id: string;
  tenant: string;
  /** false: registration answers 41707 (enrollment disabled). */
  enrollment: boolean;
  /** false: registration answers 50302 (no key server for the keyspace). */
  online: boolean;
}

export const DEFAULT_TENANT = 'dev';
export const DEFAULT_KEYSPACE = 'ABcd';

export function newDevToken(): string {
  return `ksdev.${randomBytes(18).toString('base64url')}`;
}

/** Everything the mock knows. Enrollment state is added to it by the enrollment side. */
export class MockState {
  readonly ids = new IdGenerator();
  readonly tenants = new Map<string, Tenant>();
  readonly bearer = new Map<string, Principal>();
  /** Keyed by `username:password`. */
  readonly basic = new Map<string, Principal>();
  readonly users = new Map<string, MockUser>();
  readonly keyspaces = new Map<string, MockKeyspace>();
  readonly faults = new FaultSet();
  readonly enrollment = new EnrollmentState();
  /** Keys created by enrolled devices (device requests). */
  readonly keys = new KeyStore();
  /** Replay protection of device requests; not state, like the journal. */
  readonly cids = new RecentCids(CID_MAX_SKEW_MS);
  justInTimeUsers = false;
  private readonly journal = new Journal();

  constructor(
    readonly devToken: string,
    readonly defaultTenant = DEFAULT_TENANT,
    readonly defaultKeyspace = DEFAULT_KEYSPACE,
  ) {
    this.bearer.set(devToken, { name: 'dev', scopes: new Set(SCOPES), admin: true });
  }

  tenant(id: string): Tenant | undefined {
    return this.tenants.get(id);
  }

  addTenant(id: string): Tenant {
    let t = this.tenants.get(id);
    if (!t) {
      t = { id, markings: new MarkingsStore(this.ids, id) };
      this.tenants.set(id, t);
    }
    return t;
  }

  record(entry: JournalEntry): void {
    this.journal.record(entry);
  }

  requests(): RequestJournal {
    return this.journal.list();
  }

  clearJournal(): void {
    this.journal.clear();
  }

  /** Back to an empty service; the dev token and the key server key pair stay valid. */
  clear(): void {
    this.tenants.clear();
    this.bearer.clear();
    this.bearer.set(this.devToken, { name: 'dev', scopes: new Set(SCOPES), admin: true });
    this.basic.clear();
    this.users.clear();
    this.keyspaces.clear();
    this.faults.replace([]);
    this.justInTimeUsers = false;
    this.enrollment.clear();
    this.keys.clear();
    this.cids.clear();
    this.clearJournal();
  }
}
