/**
 * `ksctl conformance --replay FILE`: a recording's markings requests (src/common/mock/wire.ts
 * `Recording`), sent again in order to a fresh embedded mock, and each answer compared with the
 * recorded one by the rules of compare.ts. The mock starts from `--seed`, or from what the
 * recording read (startingState). The recording's ids are the service's: each is sent as
 * the id the mock gave the same marking or value (found by name), and an `If-Match` as the mock's
 * version of that marking. A body the recording kept only in part is never compared as if whole.
 */
import type { ApiClient } from '../api/client.js';
import { redactUrl } from '../../common/http/redact.js';
import { InputError } from '../../common/errors.js';
import { VALUES_MAX_PER_MARKING } from '../../common/markings/wire.js';
import type { Seed, SeedMarking } from '../usecases/mock.js';
import type { JournalEntryWithBodies, JournalMessage, Recording } from '../../common/mock/wire.js';
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

function text(message: JournalMessage): string {
  return message.encoding === 'base64'
    ? Buffer.from(message.body, 'base64').toString('utf8')
    : message.body;
}

/** Whether the recording kept the whole of a message (a dropped one kept nothing). */
const whole = (m: JournalMessage) => !m.truncated && m.dropped !== true;

function parsed(message: JournalMessage): unknown {
  const body = text(message);
  if (body === '') return undefined;
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

function lowerKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

/** The markings path under the base URL: `/v2/acme/markings/1?x=y` → `/markings/1?x=y`. */
function markingsPath(path: string): string | undefined {
  return /^[^?]*?(\/markings(?:[/?].*)?)$/.exec(path)?.[1];
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The markings and values an answer body holds (a marking, a listing, a bulk answer, a value). */
function* markingsIn(body: unknown): Iterable<Json> {
  const items = Array.isArray(body)
    ? body
    : isObject(body) && Array.isArray(body.Resources)
      ? body.Resources
      : [body];
  for (const item of items) if (isObject(item) && typeof item.name === 'string') yield item;
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

/** What a marking's starting state is made of, as the recording lets it be inferred. */
interface Start {
  marking: SeedMarking;
  /** `detail.valueCount` as first read before any change to the marking. */
  valueCount?: number;
  /** Its values at the start, by name. */
  values: Map<string, { name: string; description?: string }>;
  /** Values read only after a change to the marking that no change of the recording answered first. */
  later: Map<string, { name: string; description?: string }>;
  /** The ids of the values above: a value renamed by the recording is still one value. */
  ids: Set<string>;
}

/** How the replay's starting state was made: told in the report. */
export interface StartingState {
  seed: Seed;
  /** Markings the recording read, as it first read them. */
  markings: number;
  /** Values the recording counted but never showed, seeded as stand-ins (STAND_IN names). */
  standIns: number;
  /** Stand-ins left out past STAND_INS_MAX. */
  standInsLeftOut: number;
}

/** The name of a stand-in value: `~` sorts it after the values a listing showed by name. */
export const STAND_IN = '~ksctl-stand-in-';
/**
 * Most stand-ins a replay seeds in all (a recording's counts are its word, not memory's measure):
 * past it, the counts of the markings left without differ, and the report says so.
 */
export const STAND_INS_MAX = 250_000;

/**
 * The mock's starting state from the recording: each marking as the recording read it before any
 * request changed it, with the values its answers showed, before or after a change (a listing of
 * values counts too; a value first seen in the answer to a request that named it new is one the
 * recording made, and the values read after a change fill the count only as far as it goes). A
 * default value is a value. Where a count (`detail.valueCount`, as with `valueLimit=0`) says a
 * marking had more values than the recording ever showed, stand-ins named `~ksctl-stand-in-N`
 * make up the count, so listings and counts replay alike. Markings the recording created are left
 * out: the replay creates them.
 */
export function seedFromRecording(exchanges: readonly JournalEntryWithBodies[]): Seed {
  return startingState(exchanges).seed;
}

export function startingState(exchanges: readonly JournalEntryWithBodies[]): StartingState {
  const starts = new Map<string, Start>();
  const byId = new Map<string, Start>();
  /** Markings a request changed (by id) or made (by name): read afterwards, they are not as they started. */
  const changed = new Set<string>();
  const created = new Set<string>();
  /** Value ids any answer showed, and those first shown by the answer to a change. */
  const seenValues = new Set<string>();
  const madeValues = new Set<string>();
  /** A value first seen in the answer to a request that named it new was made by the recording. */
  const noteValue = (v: Json, madeNow: ReadonlySet<string>) => {
    if (typeof v.id !== 'string' || seenValues.has(v.id)) return;
    seenValues.add(v.id);
    if (typeof v.name === 'string' && madeNow.has(v.name)) madeValues.add(v.id);
  };
  const addTo = (start: Start | undefined, v: Json, atStart: boolean) => {
    if (start === undefined || typeof v.name !== 'string') return;
    if (typeof v.id === 'string' && (madeValues.has(v.id) || start.ids.has(v.id))) return;
    const into = atStart ? start.values : start.later;
    if (into.has(v.name)) return;
    if (typeof v.id === 'string') start.ids.add(v.id);
    into.set(v.name, {
      name: v.name,
      // The service answers a value without a description with "": the seed leaves it out alike.
      ...(typeof v.description === 'string' && v.description !== ''
        ? { description: v.description }
        : {}),
    });
  };
  for (const e of exchanges) {
    const path = markingsPath(e.path) ?? '';
    const body = whole(e.response) ? parsed(e.response) : undefined;
    const write = e.method !== 'GET';
    if (write && e.status >= 300) continue;
    if (!write && (e.status !== 200 || body === undefined)) continue;
    const madeNow = write ? newValueNames(path, e.method, parsed(e.request)) : new Set<string>();
    for (const [, v] of valuesIn(body)) noteValue(v, madeNow);
    if (write) {
      // The other values a change answered with were there before it (a PUT answers them all).
      for (const [owner, v] of valuesIn(body)) addTo(byId.get(owner), v, false);
      const touched = /^\/markings\/([0-9a-f]{24})/.exec(path)?.[1];
      if (touched !== undefined) changed.add(touched);
      for (const m of e.method === 'POST' && /^\/markings(\?|$)/.test(path)
        ? markingsIn(body)
        : []) {
        if (typeof m.id === 'string') changed.add(m.id);
        if (typeof m.id === 'string' && !byId.has(m.id)) created.add(m.name as string);
      }
      continue;
    }
    const valuesOf = /^\/markings\/([0-9a-f]{24})\/values(?:\?|$)/.exec(path)?.[1];
    if (valuesOf !== undefined) {
      for (const v of markingsIn(body)) addTo(byId.get(valuesOf), v, !changed.has(valuesOf));
      continue;
    }
    for (const m of markingsIn(body)) {
      const name = m.name as string;
      if (typeof m.markingId === 'string' || created.has(name)) continue;
      const detail = isObject(m.detail) ? m.detail : {};
      const values = (Array.isArray(detail.values) ? detail.values : []).filter(isObject);
      const id = typeof m.id === 'string' ? m.id : undefined;
      if (id !== undefined && changed.has(id)) {
        for (const v of values) addTo(byId.get(id), v, false);
        continue;
      }
      let start = (id === undefined ? undefined : byId.get(id)) ?? starts.get(name);
      if (start === undefined) {
        start = {
          marking: {
            name,
            ...(typeof detail.description === 'string' ? { description: detail.description } : {}),
            public: m.public === true,
            adminOnly: m.adminOnly === true,
            defaultValue: typeof m.defaultValue === 'string' ? m.defaultValue : null,
          },
          // A count no marking can hold is not taken for one.
          ...(Number.isSafeInteger(detail.valueCount) &&
          (detail.valueCount as number) >= 0 &&
          (detail.valueCount as number) <= VALUES_MAX_PER_MARKING
            ? { valueCount: detail.valueCount as number }
            : {}),
          values: new Map(),
          later: new Map(),
          ids: new Set(),
        };
        starts.set(name, start);
      }
      if (id !== undefined) byId.set(id, start);
      for (const v of values) addTo(start, v, true);
    }
  }
  let standIns = 0;
  let standInsLeftOut = 0;
  const markings: SeedMarking[] = [];
  for (const start of starts.values()) {
    const { values, valueCount } = start;
    const defaultValue = start.marking.defaultValue;
    // A default value is one of the marking's values, shown by name even where its values are not.
    if (typeof defaultValue === 'string' && !values.has(defaultValue)) {
      values.set(defaultValue, start.later.get(defaultValue) ?? { name: defaultValue });
    }
    const room = () => valueCount === undefined || values.size < valueCount;
    for (const [name, v] of start.later) if (room() && !values.has(name)) values.set(name, v);
    if (valueCount !== undefined) {
      const width = String(valueCount).length;
      for (let n = 1; values.size < valueCount; n++) {
        if (standIns === STAND_INS_MAX) {
          standInsLeftOut += valueCount - values.size;
          break;
        }
        const name = `${STAND_IN}${String(n).padStart(width, '0')}`;
        if (values.has(name)) continue;
        values.set(name, { name });
        standIns++;
      }
    }
    markings.push({
      ...start.marking,
      values: [...values.values()].map((v) => (v.description === undefined ? v.name : v)),
    });
  }
  markings.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { seed: { markings }, markings: markings.length, standIns, standInsLeftOut };
}

/** The values an answer body shows: values, or markings' `detail.values`. */
function* valuesIn(body: unknown): Iterable<[owner: string, value: Json]> {
  for (const item of markingsIn(body)) {
    if (typeof item.markingId === 'string') {
      yield [item.markingId, item];
      continue;
    }
    const values =
      isObject(item.detail) && Array.isArray(item.detail.values) ? item.detail.values : [];
    for (const v of values) if (isObject(v)) yield [String(item.id), v];
  }
}

/**
 * The names of the values a change request makes: those a POST of values sends, and those a
 * marking's body lists without an id (an entry with an id is a value it keeps).
 */
function newValueNames(path: string, method: string, body: unknown): Set<string> {
  const names = new Set<string>();
  const add = (v: unknown) => {
    if (typeof v === 'string') names.add(v);
    else if (isObject(v) && typeof v.name === 'string' && v.id === undefined) names.add(v.name);
  };
  if (method === 'POST' && /^\/markings\/[0-9a-f]{24}\/values(?:\?|$)/.test(path)) {
    for (const v of Array.isArray(body) ? body : [body]) add(v);
    return names;
  }
  const markings = Array.isArray(body)
    ? body
    : isObject(body) && Array.isArray(body.markings)
      ? body.markings
      : [body];
  for (const m of markings) {
    if (!isObject(m)) continue;
    const values =
      isObject(m.detail) && Array.isArray(m.detail.values) ? m.detail.values : m.values;
    for (const v of Array.isArray(values) ? values : []) add(v);
  }
  return names;
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
