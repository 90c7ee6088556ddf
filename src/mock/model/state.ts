/**
 * The whole mock's model: tenants with their markings stores, users, keyspaces, the principals of
 * bearer tokens and basic credentials, the enrollment and device stores, fault rules and the
 * request journal, composed of each side's model. The sides' routes work on it; durable-state.ts
 * makes it durable (mock/persistence/ knows it only as records).
 */
import { randomBytes } from 'node:crypto';
import { SCOPES, type Scope } from '../../common/markings/wire.js';
import type { RequestJournal } from '../../common/mock/wire.js';
import { CID_MAX_SKEW_MS } from '../../common/device/cid.js';
import { DeviceMessages, KeyStore, RecentCids } from './device/store.js';
import { EnrollmentState } from './enrollment/store.js';
import { FaultSet } from './admin/faults.js';
import { ChangeFeed, RecordedMap } from '../kit/changes.js';
import { IdGenerator } from '../kit/ids.js';
import { Journal } from '../journal/request-journal.js';
import { MarkingsStore } from './markings/store.js';
import type { MarkingChanges } from './markings/stored.js';
import type { ConsoleKeyspace } from '../../common/mock/wire.js';

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

export type MockKeyspace = ConsoleKeyspace;

export const DEFAULT_TENANT = 'dev';
export const DEFAULT_KEYSPACE = 'ABcd';

export function newDevToken(): string {
  return `ksdev.${randomBytes(18).toString('base64url')}`;
}

/** A principal as the durable state journals it (durable-state.ts). */
export interface PrincipalRecord {
  key: string;
  name: string;
  scopes: Scope[];
  admin: boolean;
  tenant?: string;
}

export const principalRecord = (key: string, p: Principal): PrincipalRecord => ({
  key,
  name: p.name,
  scopes: [...p.scopes],
  admin: p.admin,
  ...(p.tenant === undefined ? {} : { tenant: p.tenant }),
});

const devPrincipal = (): Principal => ({ name: 'dev', scopes: new Set(SCOPES), admin: true });

/**
 * Everything the mock knows. Enrollment state is added to it by the enrollment side. Every change
 * is reported to `changes` (kit/changes.ts), which the durable state (`--state`) journals.
 */
export class MockState {
  readonly changes = new ChangeFeed();
  readonly ids = new IdGenerator();
  readonly tenants = new RecordedMap<string, Tenant>(this.changes, 'tenant', (id) => id);
  readonly bearer = new RecordedMap<string, Principal>(this.changes, 'bearer', principalRecord);
  /** Keyed by `username:password`. */
  readonly basic = new RecordedMap<string, Principal>(this.changes, 'basic', principalRecord);
  readonly users = new RecordedMap<string, MockUser>(this.changes, 'user', (_, u) => u);
  readonly keyspaces = new RecordedMap<string, MockKeyspace>(this.changes, 'keyspace', (_, k) => k);
  readonly faults = new FaultSet(Math.random, () =>
    this.changes.record('faults', this.faults.list()),
  );
  readonly enrollment = new EnrollmentState(this.changes);
  private jitUsers = false;
  /** Keys created by enrolled devices (device requests). */
  readonly keys = new KeyStore(this.changes);
  /** Replay protection of device requests; not state, like the journal. */
  readonly cids = new RecentCids(CID_MAX_SKEW_MS);
  /** What devices logged with `/v2.4/messages`; not state, like the journal. */
  readonly deviceMessages = new DeviceMessages();
  /** The request journal (request-journal.ts): it keeps none of the secrets below. */
  readonly journal = new Journal();

  constructor(
    private token: string,
    readonly defaultTenant = DEFAULT_TENANT,
    readonly defaultKeyspace = DEFAULT_KEYSPACE,
  ) {
    // Every secret the state comes to hold is one the journal scrubs (restored ones too).
    this.changes.tap((kind, data) => {
      for (const secret of secretsOfChange(kind, data)) this.journal.secrets.add(secret);
    });
    this.journal.secrets.add(this.enrollment.portalSecret);
    this.bearer.set(token, devPrincipal());
  }

  get devToken(): string {
    return this.token;
  }

  /** Replaces the dev token (a durable state restores its own, or `--dev-token` overrides it). */
  setDevToken(token: string): void {
    if (token === this.token) return;
    this.bearer.delete(this.token);
    this.token = token;
    this.bearer.set(token, devPrincipal());
    this.changes.record('devToken', token);
  }

  /** Unknown users who enroll are created on the spot. */
  get justInTimeUsers(): boolean {
    return this.jitUsers;
  }

  set justInTimeUsers(on: boolean) {
    this.jitUsers = on;
    this.changes.record('justInTimeUsers', on);
  }

  tenant(id: string): Tenant | undefined {
    return this.tenants.get(id);
  }

  addTenant(id: string): Tenant {
    let t = this.tenants.get(id);
    if (!t) {
      t = {
        id,
        markings: new MarkingsStore(this.ids, id, undefined, markingChanges(this.changes, id)),
      };
      this.tenants.set(id, t);
    }
    return t;
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
    this.bearer.set(this.devToken, devPrincipal());
    this.basic.clear();
    this.users.clear();
    this.keyspaces.clear();
    this.faults.replace([]);
    this.justInTimeUsers = false;
    this.enrollment.clear();
    this.keys.clear();
    this.cids.clear();
    this.deviceMessages.clear();
    this.clearJournal();
  }
}

/**
 * The secrets a change brings (its record as changes.ts reports it): tokens and basic
 * credentials, users' passwords, devices' SEP keys, data keys, registration codes sent, the
 * portal's HMAC secret and the key server's private key.
 */
function secretsOfChange(kind: string, data: unknown): (string | Buffer)[] {
  const record = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>;
  const text = (value: unknown): string[] => (typeof value === 'string' ? [value] : []);
  const hex = (value: unknown): Buffer[] =>
    typeof value === 'string' && /^(?:[0-9a-f]{2})+$/i.test(value)
      ? [Buffer.from(value, 'hex')]
      : [];
  switch (kind) {
    case 'devToken':
      return text(data);
    case 'bearer.set':
      return text(record.key);
    case 'basic.set': {
      // `username:password`: the password alone is the secret.
      const key = typeof record.key === 'string' ? record.key : '';
      return key.includes(':') ? [key.slice(key.indexOf(':') + 1)] : [];
    }
    case 'user.set':
      return text(record.password);
    case 'device':
      return [...hex(record.cdEi), ...hex(record.cdIdc)];
    case 'deviceKey':
      return hex(record.key);
    case 'outbox':
      return text(record.code);
    case 'portalSecret':
      return hex(data);
    case 'keyServerKey':
      // Each line of the PEM's Base64, so the key is found however its lines are broken.
      return typeof data === 'string'
        ? data.split('\n').filter((line) => line.length >= 16 && !line.startsWith('-----'))
        : [];
    default:
      return [];
  }
}

/** A tenant's markings changes, as records naming the tenant (durable-state.ts). */
function markingChanges(feed: ChangeFeed, tenant: string): MarkingChanges {
  return {
    marking: (marking) => feed.record('marking.set', { tenant, marking }),
    markingDeleted: (id) => feed.record('marking.delete', { tenant, id }),
    value: (markingId, value) => feed.record('value.set', { tenant, markingId, value }),
    valueDeleted: (markingId, id) => feed.record('value.delete', { tenant, markingId, id }),
  };
}
