/**
 * `ksctl/mock`: the embedded mock of the service, started from code. It is the server of
 * `ksctl mock serve` (one factory, `startMockServer`), on a free loopback port by default, with
 * the admin endpoints of DESIGN.md 3 as methods. Every call makes a mock with its own state.
 */
import type { KeyObject } from 'node:crypto';
import type { TokenPair } from '../../common/enrollment/wire.js';
import type {
  EnrollmentDetail,
  FaultRule,
  JournalEntry,
  JournalEntryWithBodies,
  JournalMessage,
  MockInfo,
  MockUserInfo,
  OpenedDeviceRequest,
  RequestDetail,
  RequestSide,
} from '../../common/mock/wire.js';
import { InputError, UsageError } from '../../common/errors.js';
import { codeFace } from './code-words.js';
import type { MockKeyListing } from '../../common/device/wire.js';
import {
  checkedSeed,
  type DeviceRecord,
  faultRuleProblem,
  type JournalFilter,
  type Latency,
  mockControls,
  type MockTlsChoice,
  mockTlsIdentity,
  type OutboxMessage,
  readSeed,
  type Seed,
  startMockServer,
  type TlsIdentity,
} from '../usecases/mock.js';

export type { FaultRule, JournalEntry, MockInfo, MockUserInfo, TokenPair };
export type { JournalEntryWithBodies, JournalMessage, RequestSide };
export type { EnrollmentDetail, OpenedDeviceRequest, RequestDetail };
export type { DeviceRecord, MockKeyListing, OutboxMessage, Seed };
export type { SeedMarking } from '../usecases/mock.js';

export interface StartMockOptions {
  /**
   * What the mock holds at start and after every `reset()`, beside its defaults (a tenant, the
   * keyspace `ABcd`, the users alice and bob): the object of a seed file, or the path of one
   * (YAML or JSON). See `ksctl mock serve --seed`.
   */
  seed?: Seed | string;
  /**
   * Keep the state in this directory: restored at start, every change on disk before it is
   * acknowledged (`ksctl mock serve --state`). Without it the state lives in memory only.
   */
  state?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Delay added to every answer of the service's endpoints: milliseconds, or a range. */
  latency?: number | { min: number; max: number };
  /** Fault rules in force from the start (`ksctl mock serve --fault`). */
  faults?: FaultRule[];
  /** The admin token (markings API and `/_mock`); default: a random one, in `token`. */
  devToken?: string;
  /**
   * The key server's RSA private key (PEM or KeyObject). Without it one is generated when an
   * enrollment endpoint first needs it (under a second), so a mock that never enrolls costs none.
   */
  keyServerKey?: string | KeyObject;
  /** How long `close()` lets requests in flight finish before cutting them off (default 10 s). */
  closeGraceMs?: number;
  /**
   * Speak HTTPS (`ksctl mock serve --tls`). `true`, or `{ names }`: a certificate from a local CA
   * for `localhost`, `127.0.0.1`, `::1`, the host when it names one address, and `names` (IP
   * addresses or DNS names). The CA is a throwaway one in a temporary folder that `close()`
   * removes, unless `configDir` names a folder to make it in or reuse it from
   * (`<configDir>/mock-ca/`; ksctl's configuration folder shares the CLI's CA). Or
   * `{ cert, key }`: your own certificate (its chain may follow it) and unencrypted key, each PEM
   * text or the path of a PEM file. The mock's `url` is then `https://…`, and with the local CA
   * `caFile` and `ca` are what a client trusts (`ca` for undici or `https`, `NODE_EXTRA_CA_CERTS`).
   */
  tls?: boolean | MockTlsOptions;
}

/** The local CA's certificate, or your own; see `StartMockOptions.tls`. */
export type MockTlsOptions =
  | { names?: string[]; configDir?: string; cert?: never; key?: never }
  | { cert: string; key: string; names?: never; configDir?: never };

/**
 * Which requests `requests()` returns; each filter given must hold: side, method, a part of the
 * path, a status (404) or class ('4xx'), device, cid, ids `before`/`after`, the newest `limit`,
 * `newestFirst`, and `bodies` (headers and the first 64 KiB of each body, secrets redacted).
 */
export type RequestsFilter = JournalFilter;

export interface MockTokensOptions {
  /** Default: the mock's keyspace. */
  keyspace?: string;
  /** Lifetime of the pair in seconds (default 10 minutes; 0 mints an expired pair). */
  ttlSeconds?: number;
}

/** A running mock: where it listens (the fields of `ksctl mock serve --json`) and its controls. */
export interface Mock extends MockInfo {
  /**
   * With `tls` and the local CA: the CA certificate (PEM) to trust, as in `caFile` (a throwaway
   * CA's file is gone once the mock is closed).
   */
  ca?: string;
  /** Stops listening, lets requests in flight finish, flushes a kept state. Safe to call twice. */
  close(): Promise<void>;
  /** Back to the start-up state: the defaults and the seed; the token stays the same. */
  reset(): void;
  /** A fresh single-use STOKEN/UIDAUTH pair for a user, to enroll a device with. */
  mintTokens(user: string, options?: MockTokensOptions): TokenPair;
  faults: {
    /** Replaces the fault rules; a bad rule is an `InputError` and nothing changes. */
    set(rules: FaultRule[]): void;
    clear(): void;
    list(): FaultRule[];
  };
  /**
   * The request journal, oldest first (the `/_mock` endpoints are in it too); with
   * `{ bodies: true }` each request with its headers and bodies (the first 64 KiB of each,
   * secrets redacted).
   */
  requests(filter: RequestsFilter & { bodies: true }): JournalEntryWithBodies[];
  requests(filter?: RequestsFilter): JournalEntry[];
  /**
   * One request described, by its id: both messages, a device request's envelopes opened with
   * the device's keys (protected attribute values decrypted and marked), a sealed error's code
   * and meaning, what a registration held (never its tokens), and curl and ksctl lines that send
   * it again. Undefined when the journal no longer holds it.
   */
  describeRequest(id: number): Promise<RequestDetail | undefined>;
  /** The devices enrolled, without their keys. */
  devices(): DeviceRecord[];
  /** The keys created through device requests, without key material. */
  keys(): MockKeyListing[];
  /** The registration codes the portal "e-mailed", oldest first. */
  outbox(): OutboxMessage[];
}

function latencyOf(given: StartMockOptions['latency']): Latency | undefined {
  if (given === undefined) return undefined;
  const [min, max] = typeof given === 'number' ? [given, given] : [given.min, given.max];
  if (!Number.isInteger(min) || !Number.isInteger(max) || min < 0 || max < min) {
    throw new UsageError(
      'latency must be whole milliseconds, 0 or more, or { min, max } with min <= max',
    );
  }
  return { minMs: min, maxMs: max };
}

function checkFaults(rules: unknown, where: string): FaultRule[] {
  if (!Array.isArray(rules)) throw new InputError(`${where} must be an array of fault rules`);
  rules.forEach((rule, i) => {
    const problem = faultRuleProblem(rule);
    if (problem !== undefined) throw new InputError(`${where}[${i}]: ${problem}`);
  });
  return rules as FaultRule[];
}

function checkPort(port: number | undefined): void {
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535)) {
    throw new UsageError(`port must be a whole number from 0 to 65535, not ${String(port)}`);
  }
}

function tlsOptionsOf(tls: unknown): MockTlsOptions | undefined {
  if (tls === undefined || tls === false) return undefined;
  if (tls === true) return {};
  if (typeof tls !== 'object' || tls === null || Array.isArray(tls)) {
    throw new UsageError('tls must be true, { names?, configDir? } or { cert, key }');
  }
  const given = tls as Record<string, unknown>;
  const unknownKey = Object.keys(given).find(
    (key) => !['names', 'configDir', 'cert', 'key'].includes(key),
  );
  if (unknownKey !== undefined) {
    throw new UsageError(`tls has no option "${unknownKey}" (names, configDir, cert, key)`);
  }
  const own = given.cert !== undefined || given.key !== undefined;
  if (own) {
    if (typeof given.cert !== 'string' || typeof given.key !== 'string') {
      throw new UsageError('tls.cert and tls.key go together, each PEM text or a file path');
    }
    if (given.names !== undefined || given.configDir !== undefined) {
      throw new UsageError(
        'tls.names and tls.configDir are for the local CA; with tls.cert the certificate names itself',
      );
    }
    return { cert: given.cert, key: given.key };
  }
  const { names, configDir } = given;
  if (names !== undefined && !(Array.isArray(names) && names.every((n) => typeof n === 'string'))) {
    throw new UsageError('tls.names must be an array of IP addresses or DNS names');
  }
  if (configDir !== undefined && (typeof configDir !== 'string' || configDir === '')) {
    throw new UsageError('tls.configDir must be the path of a folder');
  }
  return { names: names as string[] | undefined, configDir: configDir as string | undefined };
}

/** PEM text as it is, anything else as the path of a file that holds it. */
async function pemOrFile(given: string, option: string): Promise<{ pem: string; says: string }> {
  if (given.includes('-----BEGIN ')) return { pem: given, says: option };
  const { readFile } = await import('node:fs/promises');
  const { fileError } = await import('../../common/files/fs-errors.js');
  try {
    return { pem: await readFile(given, 'utf8'), says: `${option} (${given})` };
  } catch (error) {
    throw fileError('read', given, error);
  }
}

/**
 * The certificate the mock listens with, through the use case `mock serve --tls` goes through;
 * `cleanup` removes a throwaway CA's folder.
 */
async function tlsIdentityOf(
  tls: MockTlsOptions,
  host: string,
): Promise<{ identity: TlsIdentity; ca?: string; cleanup?: () => Promise<void> }> {
  let choice: MockTlsChoice;
  let cleanup: (() => Promise<void>) | undefined;
  if (tls.cert !== undefined) {
    const [cert, key] = await Promise.all([
      pemOrFile(tls.cert, 'tls.cert'),
      pemOrFile(tls.key, 'tls.key'),
    ]);
    choice = {
      kind: 'own',
      cert: cert.pem,
      key: key.pem,
      says: { cert: cert.says, key: key.says, certPlace: `the certificate in ${cert.says}` },
    };
  } else {
    let configDir = tls.configDir;
    if (configDir === undefined) {
      const { mkdtemp, rm } = await import('node:fs/promises');
      const { tmpdir } = await import('node:os');
      const { join } = await import('node:path');
      const dir = await mkdtemp(join(tmpdir(), 'ksctl-mock-ca-'));
      configDir = dir;
      cleanup = () => rm(dir, { recursive: true, force: true });
    }
    choice = {
      kind: 'local',
      configDir,
      host,
      names: tls.names ?? [],
      nameLabel: (i) => `tls.names[${i}]`,
    };
  }
  try {
    const identity = await mockTlsIdentity(choice);
    if (identity.caFile === undefined) return { identity, cleanup };
    const { readFile } = await import('node:fs/promises');
    return { identity, ca: await readFile(identity.caFile, 'utf8'), cleanup };
  } catch (error) {
    await cleanup?.();
    throw error;
  }
}

/**
 * Starts a mock and resolves once it listens (milliseconds). Bad options, and an address it
 * cannot listen on, are typed errors (`UsageError`, `InputError`).
 */
export function startMock(options: StartMockOptions = {}): Promise<Mock> {
  return codeFace(() => startedMock(options));
}

async function startedMock(options: StartMockOptions): Promise<Mock> {
  checkPort(options.port);
  const seed =
    options.seed === undefined
      ? undefined
      : typeof options.seed === 'string'
        ? await readSeed(options.seed)
        : checkedSeed(options.seed, 'the seed');
  const faults = options.faults === undefined ? undefined : checkFaults(options.faults, 'faults');
  const latency = latencyOf(options.latency);
  const tlsOptions = tlsOptionsOf(options.tls);
  const tls =
    tlsOptions === undefined
      ? undefined
      : await tlsIdentityOf(tlsOptions, options.host ?? '127.0.0.1');
  let server: Awaited<ReturnType<typeof startMockServer>>;
  try {
    server = await startMockServer({
      host: options.host,
      port: options.port ?? 0,
      devToken: options.devToken,
      stateDir: options.state,
      seed,
      latency,
      faults,
      keyServerKey: options.keyServerKey,
      keyServerKeyOnFirstUse: true,
      closeGraceMs: options.closeGraceMs,
      tls: tls?.identity,
    });
  } catch (error) {
    await tls?.cleanup?.();
    throw error;
  }
  const controls = mockControls(server);
  let closing: Promise<void> | undefined;
  const close = async () => {
    await server.close();
    await tls?.cleanup?.();
  };
  return {
    ...server.info,
    ...(tls?.ca === undefined ? {} : { ca: tls.ca }),
    close: () => (closing ??= close()),
    reset: () => server.reset(),
    mintTokens(user, tokenOptions = {}) {
      if (typeof user !== 'string' || user === '') {
        throw new UsageError('name the user the tokens are for');
      }
      return controls.mintTokens(user, tokenOptions.keyspace, tokenOptions.ttlSeconds);
    },
    faults: {
      set: (rules) => controls.faults.replace(checkFaults(rules, 'fault rules')),
      clear: () => controls.faults.replace([]),
      list: () => controls.faults.list(),
    },
    requests: ((filter: RequestsFilter = {}) => controls.requests(filter)) as Mock['requests'],
    describeRequest: async (id) => {
      if (!Number.isInteger(id) || id < 1) {
        throw new UsageError(`a request id is a whole number from 1, not ${String(id)}`);
      }
      return controls.describeRequest(id);
    },
    devices: () => controls.devices(),
    keys: () => controls.keys(),
    outbox: () => controls.outbox(),
  };
}
