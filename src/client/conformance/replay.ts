/**
 * `ksctl conformance --replay FILE`: a recording's markings requests (src/common/mock/wire.ts
 * `Recording`), sent again in order to a fresh embedded mock, and each answer compared with the
 * recorded one by the rules of compare.ts. The mock starts from `--seed`, or from what the
 * recording read (starting-state.ts). The recording's ids are the service's: each is sent as
 * the id the mock gave the same marking or value (found by name), and an `If-Match` as the mock's
 * version of that marking. A body the recording kept only in part is never compared as if whole.
 */
import type { ApiClient } from '../api/client.js';
import { redactUrl } from '../../common/http/redact.js';
import { InputError } from '../../common/errors.js';
import type { Seed } from '../usecases/mock.js';
import type { JournalEntryWithBodies, Recording } from '../../common/mock/wire.js';
import { isObject, markingsIn, markingsPath, parsed, text, whole } from './recorded-bodies.js';
import { STAND_IN, STAND_INS_MAX, startingState, type StartingState } from './starting-state.js';
import { compareAnswers, type ObservedAnswer } from './compare.js';
import { startReference } from './reference.js';
import type { Side } from './side.js';
import {
  compared,
  type ConformanceReport,
  type ScenarioResult,
  skipped,
  summarize,
} from './report.js';

export interface ReplayOptions {
  /** The mock's starting state; by default what the recording read (startingState). */
  seed?: Seed;
  timeoutMs: number;
  signal?: AbortSignal;
  progress?: (text: string) => void;
  /** Told as each exchange is replayed: how many went before, of how many. */
  onScenario?: (started: number, total: number, name: string) => void;
}

const ID = /\b[0-9a-f]{24}\b/g;
/** What a markings request may be sent with (CONNECT, TRACE and the like are no API calls). */
const REPLAYED_METHODS: readonly string[] = [
  'GET',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'HEAD',
  'OPTIONS',
];
/** One line without control characters. */
const PRINTABLE = /^[^\u0000-\u001f\u007f-\u009f]*$/;

/** Checks that `raw` is a recording this version reads; names what is wrong (exit 3). */
export function recordingFrom(raw: unknown, where: string): Recording {
  const problem = recordingProblem(raw);
  if (problem !== undefined) throw new InputError(`${where} is not a ksctl recording: ${problem}`);
  return raw as Recording;
}

function recordingProblem(raw: unknown): string | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return 'it holds no object';
  const r = raw as Record<string, unknown>;
  if (r.format !== 'ksctl-recording') return '"format" is not "ksctl-recording"';
  if (r.version !== 1)
    return `its version ${JSON.stringify(r.version)} is not 1 (the one this ksctl reads)`;
  if (typeof r.target !== 'string' || !PRINTABLE.test(r.target)) {
    return '"target" is not the address of a service';
  }
  if (!Array.isArray(r.exchanges)) return '"exchanges" is not a list';
  for (const [i, e] of r.exchanges.entries()) {
    const bad = exchangeProblem(e);
    if (bad !== undefined) return `exchanges[${i}]: ${bad}`;
  }
  return undefined;
}

function messageProblem(m: unknown): string | undefined {
  if (typeof m !== 'object' || m === null) return 'is not an object';
  const x = m as Record<string, unknown>;
  if (typeof x.headers !== 'object' || x.headers === null || Array.isArray(x.headers))
    return 'has no headers object';
  if (typeof x.body !== 'string') return 'has no body text';
  if (x.encoding !== 'utf8' && x.encoding !== 'base64')
    return 'has an encoding other than utf8 or base64';
  if (typeof x.truncated !== 'boolean') return 'does not say whether it was truncated';
  return undefined;
}

function exchangeProblem(e: unknown): string | undefined {
  if (typeof e !== 'object' || e === null) return 'is not an object';
  const x = e as Record<string, unknown>;
  if (typeof x.method !== 'string' || !REPLAYED_METHODS.includes(x.method)) {
    return `"method" is not an HTTP method of the markings API (${REPLAYED_METHODS.join(', ')})`;
  }
  // Shown in the report as it is: printable ASCII only, as a request line has it.
  if (typeof x.path !== 'string' || !/^\/[\x21-\x7e]*$/.test(x.path)) return '"path" is not a path';
  if (!Number.isInteger(x.status) || (x.status as number) < 100 || (x.status as number) > 599) {
    return '"status" is not an HTTP status';
  }
  if (typeof x.side !== 'string') return '"side" is missing';
  for (const part of ['request', 'response'] as const) {
    const bad = messageProblem(x[part]);
    if (bad !== undefined) return `"${part}" ${bad}`;
  }
  return undefined;
}

function lowerKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

/** What the recording says each id it holds named first: a marking's name, or a value's marking and name. */
interface RecordedIds {
  markings: Map<string, string>;
  values: Map<string, { marking: string; name: string }>;
}

function recordedIds(exchanges: readonly JournalEntryWithBodies[]): RecordedIds {
  const ids: RecordedIds = { markings: new Map(), values: new Map() };
  for (const e of exchanges) {
    if (!whole(e.response)) continue;
    for (const item of markingsIn(parsed(e.response))) {
      if (typeof item.id !== 'string') continue;
      // The name first seen: a request by id is looked up before the recording renamed it.
      if (typeof item.markingId === 'string') {
        if (!ids.values.has(item.id))
          ids.values.set(item.id, { marking: item.markingId, name: item.name as string });
        continue;
      }
      if (!ids.markings.has(item.id)) ids.markings.set(item.id, item.name as string);
      const values =
        isObject(item.detail) && Array.isArray(item.detail.values) ? item.detail.values : [];
      for (const v of values) {
        if (
          isObject(v) &&
          typeof v.id === 'string' &&
          typeof v.name === 'string' &&
          !ids.values.has(v.id)
        ) {
          ids.values.set(v.id, { marking: item.id, name: v.name });
        }
      }
    }
  }
  return ids;
}

/** The `_version` of each marking as the answers so far showed it, by id. */
function noteVersions(versions: Map<string, number>, body: unknown): void {
  for (const m of markingsIn(body)) {
    if (
      typeof m.id === 'string' &&
      typeof m._version === 'number' &&
      typeof m.markingId !== 'string'
    ) {
      versions.set(m.id, m._version);
    }
  }
}

/** Sends the recording's requests to the mock with the mock's ids and versions in them. */
class Translator {
  private readonly ids = new Map<string, string>();
  readonly recordedVersions = new Map<string, number>();
  readonly mockVersions = new Map<string, number>();

  constructor(
    private readonly recorded: RecordedIds,
    private readonly mock: ApiClient,
  ) {}

  /** The mock's id for a recorded one; the recorded id itself when the mock has no such thing. */
  private async idFor(id: string): Promise<string> {
    const known = this.ids.get(id);
    if (known !== undefined) return known;
    let found: string | undefined;
    const marking = this.recorded.markings.get(id);
    const value = this.recorded.values.get(id);
    if (marking !== undefined) found = await this.lookUp('/markings', marking);
    else if (value !== undefined) {
      const owner = await this.idFor(value.marking);
      found = await this.lookUp(`/markings/${owner}/values`, value.name);
    }
    if (found !== undefined) this.ids.set(id, found);
    return found ?? id;
  }

  private async lookUp(path: string, name: string): Promise<string | undefined> {
    const answer = await this.mock.request<{ Resources?: { id?: unknown; _version?: unknown }[] }>(
      'GET',
      path,
      {
        query: { name, limit: 1, ...(path === '/markings' ? { valueLimit: 0 } : {}) },
        okStatuses: [404],
      },
    );
    const first = answer.body?.Resources?.[0];
    if (typeof first?.id !== 'string') return undefined;
    if (typeof first._version === 'number') this.mockVersions.set(first.id, first._version);
    return first.id;
  }

  async translate(textIn: string): Promise<string> {
    let out = textIn;
    for (const id of new Set(textIn.match(ID) ?? [])) {
      const mine = await this.idFor(id);
      if (mine !== id) out = out.split(id).join(mine);
    }
    return out;
  }

  /**
   * The `If-Match` to send: the mock's current version where the recorded one was the marking's
   * latest the recording saw, else a version the mock surely passed (stale, as it was).
   */
  async ifMatch(recordedTag: string, recordedId: string | undefined): Promise<string> {
    const version = Number(/\d+/.exec(recordedTag)?.[0]);
    if (recordedId === undefined) return recordedTag;
    const latest = this.recordedVersions.get(recordedId);
    const mockId = await this.idFor(recordedId);
    const mockVersion = this.mockVersions.get(mockId);
    if (latest === undefined || mockVersion === undefined) return recordedTag;
    return version === latest ? `"${mockVersion}"` : '"0"';
  }
}

export async function runReplay(
  recording: Recording,
  options: ReplayOptions,
): Promise<ConformanceReport> {
  const exchanges = recording.exchanges.filter(
    (e) => e.side === 'markings' && markingsPath(e.path) !== undefined,
  );
  const inferred = options.seed === undefined ? startingState(exchanges) : undefined;
  const seed = options.seed ?? inferred!.seed;
  options.progress?.(
    `starting the mock with ${seed.markings?.length ?? 0} markings to replay ${exchanges.length} requests`,
  );
  const reference = await startReference({
    seed,
    needsKeyServerKey: false,
    timeoutMs: options.timeoutMs,
  });
  const translator = new Translator(recordedIds(exchanges), reference.client);
  const results: ScenarioResult[] = [];
  let interrupted = false;
  try {
    for (const [index, e] of exchanges.entries()) {
      if (options.signal?.aborted) {
        interrupted = true;
        break;
      }
      const path = markingsPath(e.path)!;
      const name = `exchange ${index + 1}: ${e.method} ${path}`;
      options.onScenario?.(index, exchanges.length, name);
      results.push(await replayOne(e, path, name, translator, reference.client, reference.side));
      if (whole(e.response)) noteVersions(translator.recordedVersions, parsed(e.response));
    }
  } finally {
    await reference.close();
  }
  return summarize(results, {
    target: redactUrl(recording.target),
    mode: 'replay',
    notReplayed: recording.exchanges.length - exchanges.length,
    start: startingWords(inferred, seed),
    ...(interrupted ? { interrupted } : {}),
  });
}

/** What the replay's mock started from, in a sentence of the report. */
function startingWords(inferred: StartingState | undefined, seed: Seed): string {
  const count = seed.markings?.length ?? 0;
  const markings = `${count} marking${count === 1 ? '' : 's'}`;
  if (inferred === undefined) return `--seed (${markings})`;
  const n = inferred.standIns;
  const standIns =
    n === 0
      ? ''
      : `; ${n.toLocaleString('en')} value${n === 1 ? '' : 's'} counted but never shown ${n === 1 ? 'is a stand-in' : 'are stand-ins'} named ${STAND_IN}N`;
  const leftOut =
    inferred.standInsLeftOut === 0
      ? ''
      : `; ${inferred.standInsLeftOut.toLocaleString('en')} more counted values were left out past ${STAND_INS_MAX.toLocaleString('en')} stand-ins, so those counts differ`;
  return `what the recording read (${markings} as first read before any change, with the values its answers showed${standIns}${leftOut}); --seed FILE gives another start`;
}

async function replayOne(
  e: JournalEntryWithBodies,
  path: string,
  name: string,
  translator: Translator,
  mock: ApiClient,
  mockSide: Side,
): Promise<ScenarioResult> {
  const shown = `${e.method} ${path}`;
  if (e.status === 403) {
    return skipped(
      name,
      "the service forbade it (403): the recording does not hold the token's scopes, so the mock cannot be asked alike",
      shown,
    );
  }
  if (!whole(e.request)) {
    return skipped(
      name,
      `the recording kept only ${e.request.dropped === true ? 'none' : 'part'} of the request body (${e.request.bytes} bytes), so it cannot be sent again whole`,
      shown,
    );
  }
  const headers = lowerKeys(e.request.headers);
  const sentPath = await translator.translate(path);
  const recordedMarking = /^\/markings\/([0-9a-f]{24})/.exec(path)?.[1];
  const sendHeaders: Record<string, string> = {};
  // Recorded text goes into headers only as one line of printable ASCII, as HTTP has it.
  const headerLine = (text: string | undefined) =>
    text !== undefined && /^[\t\x20-\x7e]*$/.test(text) ? text : undefined;
  const contentType = headerLine(headers['content-type']);
  if (contentType !== undefined) sendHeaders['content-type'] = contentType;
  const ifMatch = headerLine(headers['if-match']);
  if (ifMatch !== undefined) {
    sendHeaders['if-match'] = await translator.ifMatch(ifMatch, recordedMarking);
  }
  const body = text(e.request);
  let answer: ObservedAnswer;
  if (e.status === 401) {
    // The recorded credentials were refused; the mock is asked with a token it cannot know.
    answer = await mockSide.send({ method: e.method, path: sentPath, wrongToken: true });
  } else {
    const got = await mock.request<unknown>(e.method, sentPath, {
      headers: sendHeaders,
      body: body === '' ? undefined : await translator.translate(body),
      okStatuses: Array.from({ length: 500 }, (_, i) => 100 + i),
      what: shown,
    });
    const flat: Record<string, string> = {};
    for (const [k, v] of Object.entries(got.headers))
      if (v !== undefined) flat[k.toLowerCase()] = Array.isArray(v) ? v[0]! : v;
    answer = { status: got.status, headers: flat, body: got.body };
    noteVersions(translator.mockVersions, got.body);
  }
  const recorded: ObservedAnswer = {
    status: e.status,
    headers: lowerKeys(e.response.headers),
    body: whole(e.response) ? parsed(e.response) : undefined,
  };
  const comparison = compareAnswers(recorded, answer, { bodyCompared: whole(e.response) });
  if (!whole(e.response) && comparison.differences.length === 0) {
    return skipped(
      name,
      `the recording kept ${e.response.dropped === true ? 'none' : 'only the first part'} of the answer's body (${e.response.bytes} bytes), so only its status and headers are compared: they are the same`,
      shown,
    );
  }
  return compared(name, shown, comparison, { target: e.status, mock: answer.status });
}
