/**
 * How two answers to one request are compared, by `ksctl conformance` (the service against the
 * embedded mock) and by `--replay` (a recorded answer against the mock's): the status, the error
 * code, the members present and their JSON types, every value but those the rules below set aside,
 * and the headers clients rely on. The rules are declared once, here, and the report prints them
 * as its legend: what can never match between two services (ids, timestamps, conversation ids,
 * version numbers, wording) is never a difference.
 */
import { parseErrorBody } from '../api/errors.js';

/** An answer as the comparison sees it: header names in lower case, the body parsed. */
export interface ObservedAnswer {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON; a string when the body is not JSON; undefined when there is none. */
  body: unknown;
}

/**
 * One member that differs. `target` or `mock` is left out where that side has no such member
 * (a report shows "(absent)").
 */
export interface Difference {
  path: string;
  target?: unknown;
  mock?: unknown;
}

/** A rule of the legend: members whose value is not compared (their presence and type are). */
export interface IgnoreRule {
  /** Member names, wherever they are in a body. */
  members: readonly string[];
  why: string;
}

export const IGNORED_MEMBERS: readonly IgnoreRule[] = [
  { members: ['id', 'markingId'], why: 'ids: each service assigns its own' },
  {
    members: ['_createdTs', '_updatedTs'],
    why: 'timestamps: each service has its clock',
  },
  {
    members: ['_createdBy', '_updatedBy', 'changedBy'],
    why: 'principals: each service has its own users and tokens',
  },
  {
    members: ['_version', 'defaultVersion'],
    why: 'version numbers: they count the changes each service has seen',
  },
  {
    members: ['policies'],
    why: 'policy counts: the mock has no policies',
  },
  {
    members: ['cid', 'message'],
    why: 'conversation ids and the wording of messages',
  },
  {
    members: ['fqdn', 'tenantid', 'url', 'enroll', 'ttlSeconds'],
    why: "the key naming lookup's addresses and settings: each service has its own",
  },
];

/** The legend's lines, in the report's words. */
export const LEGEND: readonly string[] = [
  'compared: the status, the error code, the members present and their JSON types, every other value (names, descriptions, counts, order), and the headers Content-Type (its media type), ETag (its presence and form) and Location (its presence)',
  ...IGNORED_MEMBERS.map((rule) => `not compared: ${rule.members.join(', ')} (${rule.why})`),
  'not compared: the text of a body that is not JSON (the key server public key: each service has its own key); its presence and media type are',
  'error answers: the code and the paths of the details are compared, in either error shape the service answers with',
];

const IGNORED = new Set(IGNORED_MEMBERS.flatMap((rule) => rule.members));

/** Most differences one comparison lists: a drifted listing would otherwise fill a screen. */
export const DIFFERENCES_SHOWN = 50;

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function mediaType(value: string | undefined): string | undefined {
  return value?.split(';')[0]?.trim().toLowerCase();
}

/** An ETag's form without its number: `"7"` → `"N"`, `W/"7"` → `W/"N"`. */
function etagForm(value: string | undefined): string | undefined {
  return value?.trim().replace(/\d+/g, 'N');
}

const memberPath = (path: string, key: string): string =>
  /^[A-Za-z_$][\w$]*$/.test(key)
    ? path === ''
      ? key
      : `${path}.${key}`
    : `${path}[${JSON.stringify(key)}]`;

class Differences {
  readonly found: Difference[] = [];
  /** Differences beyond DIFFERENCES_SHOWN, counted only. */
  more = 0;

  add(path: string, target: unknown, mock: unknown): void {
    if (this.found.length >= DIFFERENCES_SHOWN) {
      this.more++;
      return;
    }
    const difference: Difference = { path };
    if (target !== undefined) difference.target = target;
    if (mock !== undefined) difference.mock = mock;
    this.found.push(difference);
  }

  /** Two JSON values: structure always, values unless `ignored`. */
  walk(path: string, target: unknown, mock: unknown, ignored: boolean): void {
    const [targetType, mockType] = [jsonType(target), jsonType(mock)];
    if (targetType !== mockType) {
      this.add(path, target, mock);
      return;
    }
    if (Array.isArray(target) && Array.isArray(mock)) {
      if (target.length !== mock.length) this.add(`${path}.length`, target.length, mock.length);
      const common = Math.min(target.length, mock.length);
      for (let i = 0; i < common; i++) this.walk(`${path}[${i}]`, target[i], mock[i], ignored);
      return;
    }
    if (targetType === 'object') {
      const t = target as Record<string, unknown>;
      const m = mock as Record<string, unknown>;
      for (const key of new Set([...Object.keys(t), ...Object.keys(m)])) {
        const at = memberPath(path, key);
        if (!(key in t) || !(key in m)) {
          this.add(at, t[key], m[key]);
          continue;
        }
        this.walk(at, t[key], m[key], ignored || IGNORED.has(key));
      }
      return;
    }
    if (!ignored && target !== mock) this.add(path, target, mock);
  }
}

function isError(answer: ObservedAnswer): boolean {
  return answer.status >= 400;
}

/** The parts of an error answer that are compared, whichever of the two shapes it has. */
function errorParts(body: unknown): { code?: number; details: string[] } {
  const parsed = parseErrorBody(body);
  return { code: parsed.code, details: parsed.details.map((d) => d.path) };
}

export interface Comparison {
  differences: Difference[];
  /** Differences found beyond those listed. */
  more: number;
}

/**
 * The differences between the target's answer and the mock's to one request. `bodyCompared:
 * false` compares the status and headers alone (a recorded body that was cut short).
 */
export function compareAnswers(
  target: ObservedAnswer,
  mock: ObservedAnswer,
  options: { bodyCompared?: boolean } = {},
): Comparison {
  const found = new Differences();
  if (target.status !== mock.status) found.add('status', target.status, mock.status);
  const [targetType, mockType] = [
    mediaType(target.headers['content-type']),
    mediaType(mock.headers['content-type']),
  ];
  const bodies = options.bodyCompared !== false;
  if (bodies && targetType !== mockType) found.add('header Content-Type', targetType, mockType);
  const [targetTag, mockTag] = [etagForm(target.headers.etag), etagForm(mock.headers.etag)];
  if (targetTag !== mockTag) found.add('header ETag', targetTag, mockTag);
  if ((target.headers.location === undefined) !== (mock.headers.location === undefined)) {
    found.add('header Location', target.headers.location, mock.headers.location);
  }
  if (!bodies) return { differences: found.found, more: found.more };
  if (isError(target) && isError(mock)) {
    const [t, m] = [errorParts(target.body), errorParts(mock.body)];
    if (t.code !== m.code) found.add('error.code', t.code, m.code);
    found.walk('error.details', t.details, m.details, false);
  } else if (typeof target.body === 'string' || typeof mock.body === 'string') {
    // Text (the key server public key): each service has its own; whether there is one counts.
    const [t, m] = [jsonType(target.body), jsonType(mock.body)];
    if (t !== m) found.add('body', describe(target.body), describe(mock.body));
  } else if (target.body === undefined || mock.body === undefined) {
    if (target.body !== mock.body) found.add('body', describe(target.body), describe(mock.body));
  } else {
    found.walk('', target.body, mock.body, false);
  }
  return { differences: found.found, more: found.more };
}

function describe(body: unknown): string | undefined {
  if (body === undefined) return undefined;
  return typeof body === 'string' ? `text (${body.length} characters)` : `JSON ${jsonType(body)}`;
}

/** A difference in one line: `Resources[0].name: "a" on the target, "b" on the mock`. */
export function differenceLine(difference: Difference): string {
  return `${difference.path}: ${shown(difference, 'target')} on the target, ${shown(difference, 'mock')} on the mock`;
}

function shown(difference: Difference, side: 'target' | 'mock'): string {
  if (!(side in difference)) return '(absent)';
  const text = JSON.stringify(difference[side]) ?? 'undefined';
  return text.length > 120 ? `${text.slice(0, 117)}…` : text;
}
