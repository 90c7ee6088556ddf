/**
 * The mock, as the client runs it: the one door from the client wing to the service wing (the
 * layers test holds every other file of src/client/ to it). Starting the mock, as `ksctl mock
 * serve`, the library's `startMock`, the demo and conformance do: the server, and what a start
 * that fails means in the user's words. An address that cannot be listened on is a usage error
 * that names it; anything else wrong with the state directory names the directory, whatever the
 * system call (an EACCES there is the directory's, not the address's). The certificate the mock
 * speaks HTTPS with, by the same rules for the CLI's flags and the library's options. And the few
 * things of the mock the faces need beside: its seeds and fault rules read by its own rules, a
 * state directory checked and recovered, a running mock's controls in this process, and the
 * recording proxy of `ksctl mock record`.
 *
 * The server loads with this file (the library's `ksctl/mock` is the mock), and with it what it
 * holds (seeds, faults, the durable state); the state directory's report and the recorder, which
 * it does not use, when a function here first needs them.
 */
import type { FileHandle } from 'node:fs/promises';
import type { TokenPair } from '../../common/enrollment/wire.js';
import type { MockKeyListing } from '../../common/device/wire.js';
import type { FaultRule, JournalEntry, Recording, RequestDetail } from '../../common/mock/wire.js';
import { type InputError, KsctlError, NotFoundError, UsageError } from '../../common/errors.js';
import { fileError } from '../../common/files/fs-errors.js';
import type { ReadLimit } from '../../common/files/bounded-read.js';
import { DurableState, rebuildState } from '../../mock/model/durable-state.js';
import { mintFor } from '../../mock/routes/enrollment/admin-routes.js';
import type { DeviceRecord, OutboxMessage } from '../../mock/model/enrollment/store.js';
import {
  certificateNames,
  isLoopbackHost,
  localCaFiles,
  localTlsIdentity,
  pairedTlsIdentity,
  type TlsIdentity,
  userTlsIdentity,
} from '../../mock/kit/local-ca.js';
import { damagedStateError } from '../../mock/persistence/durable.js';
import { type Inspection, inspectStateDir } from '../../mock/persistence/inspection.js';
import { problemText } from '../../mock/persistence/integrity.js';
import type { StateReport } from '../../mock/persistence/report.js';
import { lockHolder } from '../../mock/persistence/state-lock.js';
import type { Recorder, RecorderOptions } from '../../mock/server/recorder.js';
import { describeRequest } from '../../mock/request-detail/request-detail.js';
import type { JournalFilter } from '../../mock/journal/filter.js';
import { readSeedFile, type Seed, seedFrom } from '../../mock/model/seed.js';
import { MockServer, type MockServerOptions } from '../../mock/server/server.js';
import { DEFAULT_KEYSPACE } from '../../mock/model/state.js';

export type { DeviceKeys, DeviceRecord, OutboxMessage } from '../../mock/model/enrollment/store.js';
export type { Latency } from '../../mock/model/admin/faults.js';
export type { DeviceKeyring } from '../../mock/request-detail/device.js';
export type { JournalFilter } from '../../mock/journal/filter.js';
export type { Seed, SeedMarking } from '../../mock/model/seed.js';
export type { MockServer, MockServerOptions, TlsIdentity };
export type { StateReport };

/**
 * What the faces check before a mock starts, by the mock's own rules: a fault rule (as an
 * object, or as `--fault` text), a latency (`MS` or `MIN-MAX`), and whether an address is this
 * machine's alone.
 */
export {
  faultRuleProblem,
  faultRulesFromArguments,
  parseLatency,
} from '../../mock/model/admin/faults.js';
export { isLoopbackHost } from '../../mock/kit/local-ca.js';

/**
 * How the mock gets its certificate, whoever asks (`mock serve --tls`, `startMock({ tls })`):
 * the local CA in `configDir/mock-ca/` (made or reused) for the loopback names, the host when it
 * names one address, and `names`; or the user's own certificate and key, as files
 * (`--tls-cert`, `--tls-key`) or PEM text (the library's `tls: { cert, key }`).
 */
export type MockTlsChoice =
  | {
      kind: 'local';
      configDir: string;
      /** Where the mock listens: a single non-loopback address joins the names. */
      host: string;
      names: readonly string[];
      /** What each name is called in an error (`--tls-name`, `tls.names[0]`). */
      nameLabel: (index: number) => string;
      note?: (message: string) => void;
    }
  | {
      kind: 'files';
      certFile: string;
      keyFile: string;
    }
  | {
      kind: 'own';
      cert: string;
      key: string;
      /** How errors name the certificate and the key. */
      says: { cert: string; key: string; certPlace: string };
    };

/** The certificate and key the mock listens with, by `choice`. */
export async function mockTlsIdentity(choice: MockTlsChoice): Promise<TlsIdentity> {
  if (choice.kind === 'files') return userTlsIdentity(choice.certFile, choice.keyFile);
  if (choice.kind === 'own') return pairedTlsIdentity(choice.cert, choice.key, choice.says);
  const host = choice.host.replace(/^\[(.*)\]$/, '$1');
  const wildcard = host === '0.0.0.0' || host === '::' || host === '';
  const asked = wildcard || isLoopbackHost(host) ? choice.names : [host, ...choice.names];
  const shift = asked.length - choice.names.length;
  const names = certificateNames(asked, (i) =>
    i < shift ? 'the host' : choice.nameLabel(i - shift),
  );
  return localTlsIdentity(choice.configDir, names, choice.note);
}

/** The mock server, started and listening; a start that fails says why in the user's words. */
export async function startMockServer(options: MockServerOptions): Promise<MockServer> {
  try {
    return await MockServer.start(options);
  } catch (error) {
    throw startError(error, options);
  }
}

function startError(error: unknown, options: MockServerOptions): unknown {
  const { code } = error as NodeJS.ErrnoException;
  const listening = listenError(error, options.host ?? '127.0.0.1', options.port ?? 0);
  if (listening !== error) return listening;
  if (options.stateDir !== undefined && code !== undefined && !(error instanceof KsctlError)) {
    return fileError('use the state directory', options.stateDir, error);
  }
  return error;
}

/**
 * An address that cannot be listened on as a usage error that names it (the mock, and the
 * recorder of `ksctl mock record`); any other error as it is.
 */
export function listenError(error: unknown, host: string, port: number): unknown {
  const { code, syscall } = error as NodeJS.ErrnoException;
  if (code === 'EADDRINUSE') {
    return new UsageError(`port ${port} on ${host} is already in use`, {
      hint: {
        cli: 'pick another with --port, or --port 0 for any free port',
        code: 'pick another port, or port 0 for any free one',
      },
      cause: error,
    });
  }
  if (syscall === 'listen' && (code === 'EADDRNOTAVAIL' || code === 'EACCES')) {
    return new UsageError(`cannot listen on ${host}:${port} (${code})`, { cause: error });
  }
  return error;
}

/** The local CA's certificate file in a configuration folder (`ksctl mock ca`). */
export function localCaFile(configDir: string): string {
  return localCaFiles(configDir).caFile;
}

// ---- Seeds

/** A seed file (YAML or JSON) read and checked by the mock's rules, within `limit`. */
export function readSeed(file: string, limit?: ReadLimit): Promise<Seed> {
  return readSeedFile(file, limit);
}

/** A seed given as an object (the library's `seed`), checked by the mock's rules. */
export function checkedSeed(raw: unknown, where: string): Seed {
  return seedFrom(raw, where);
}

/** Whether a mock serves `keyspace` with no seed naming it: its default keyspace. */
export function servedWithoutSeed(keyspace: string): boolean {
  return keyspace === DEFAULT_KEYSPACE;
}

// ---- A running mock's controls, in this process

/**
 * What the `/_mock` endpoints offer over HTTP, called on a mock of this process (the library's
 * `Mock`): tokens, faults, the journal, and what the mock holds.
 */
export interface MockControls {
  /**
   * A fresh token pair for `user` in `keyspace` (default: the mock's own), valid `ttlSeconds`
   * (whole, 0 or more).
   */
  mintTokens(user: string, keyspace: string | undefined, ttlSeconds?: number): TokenPair;
  faults: { replace(rules: FaultRule[]): void; list(): FaultRule[] };
  requests(filter: JournalFilter): JournalEntry[];
  describeRequest(id: number): Promise<RequestDetail | undefined>;
  devices(): DeviceRecord[];
  keys(): MockKeyListing[];
  outbox(): OutboxMessage[];
}

export function mockControls(server: MockServer): MockControls {
  const { state } = server;
  return {
    mintTokens(user, keyspaceId = state.defaultKeyspace, ttlSeconds) {
      const keyspace = state.keyspaces.get(keyspaceId);
      if (!keyspace) throw new NotFoundError(`keyspace ${keyspaceId} not found in the mock`);
      if (ttlSeconds !== undefined && !(Number.isInteger(ttlSeconds) && ttlSeconds >= 0)) {
        throw new UsageError('ttlSeconds must be a whole number of seconds, 0 or more');
      }
      return mintFor(state, keyspace, user, ttlSeconds);
    },
    faults: {
      replace: (rules) => state.faults.replace(rules),
      list: () => state.faults.list(),
    },
    requests: (filter) => state.journal.list(filter).requests,
    describeRequest: (id) => describeRequest(state, { id }, server.info),
    devices: () => state.enrollment.devices(),
    keys: () => state.keys.list(),
    outbox: () => state.enrollment.outbox(),
  };
}

// ---- A state directory (`--state`), checked and recovered

export interface StateDirCheck {
  inspection: Inspection;
  report: StateReport;
}

/** What a state directory holds and what is wrong with it; nothing in it changes. */
export async function checkStateDir(dir: string): Promise<StateDirCheck> {
  const { stateReport } = await import('../../mock/persistence/report.js');
  const holder = await lockHolder(dir);
  // A lock file left behind means the last mock died: a torn last line is then forgiven.
  const inspection = await inspectStateDir(dir, { crashed: holder !== undefined });
  return { inspection, report: stateReport(inspection, holder) };
}

/** The error a mock started on a damaged directory gives, as `check` found it. */
export function damagedStateDirError(dir: string, report: StateReport): InputError {
  return damagedStateError(dir, report.problems, true);
}

/**
 * A new state directory `to`, made of every record of `dir` that verifies: what was kept, what
 * could not be applied, each problem in words, and the records written, read back as `check`
 * reads them.
 */
export async function recoverStateDir(dir: string, to: string) {
  const { inspection, report } = await checkStateDir(dir);
  const { state, kept, unusable } = rebuildState(inspection);
  const target = await DurableState.open({ dir: to });
  await target.attach(state);
  await target.close();
  const written = await inspectStateDir(to, { crashed: false });
  return {
    report,
    kept,
    unusable,
    problems: report.problems.map(problemText),
    writtenRecords: written.snapshot?.records.length ?? 0,
  };
}

// ---- The recording proxy of `ksctl mock record`

/** The recording proxy, listening; an address it cannot listen on said as the mock's is. */
export async function startRecorder(options: RecorderOptions): Promise<Recorder> {
  const { Recorder } = await import('../../mock/server/recorder.js');
  return Recorder.start(options).catch((error: unknown) => {
    throw listenError(error, options.host, options.port);
  });
}

/** A recording as JSON text in chunks, its exchanges read back from the spool. After close(). */
export async function recordingText(
  header: Omit<Recording, 'exchanges'>,
  spool: FileHandle,
): Promise<AsyncIterable<string>> {
  const { Recorder } = await import('../../mock/server/recorder.js');
  return Recorder.recordingText(header, Recorder.spoolLines(spool));
}
