/**
 * Fault injection for the mock: `--latency`, and fault rules (method, path, status or cause code,
 * probability, times) from the command line, a seed file or `PUT /_mock/faults`, checked in one
 * place; FaultSet holds the rules in force and picks the one that fires for a request.
 */
import { type FaultRule, MarkingsErrorCode } from '../../api/wire.js';
import { causeByCode } from '../../enroll/causes.js';
import { UsageError } from '../../errors.js';

export interface Latency {
  minMs: number;
  maxMs: number;
}

/** `--latency 50` or `--latency 20-200`. */
export function parseLatency(text: string): Latency | undefined {
  const m = /^(\d+)(?:-(\d+))?$/.exec(text.trim());
  if (!m) return undefined;
  const min = Number(m[1]);
  const max = m[2] === undefined ? min : Number(m[2]);
  return max >= min ? { minMs: min, maxMs: max } : undefined;
}

export function latencyDelay(latency: Latency | undefined, random = Math.random): number {
  if (!latency) return 0;
  return latency.minMs + Math.round(random() * (latency.maxMs - latency.minMs));
}

/** The methods a rule may name (matched case-insensitively). */
const FAULT_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const FAULT_FIELDS = ['method', 'path', 'code', 'status', 'probability', 'times'];
const NUMERIC_FIELDS = new Set(['code', 'status', 'probability', 'times']);
/** Only plain decimals are numbers: Number() would read "" as 0 and "0x1f7" as 503. */
const DECIMAL = /^-?(?:\d+(?:\.\d*)?|\.\d+)$/;
const MARKINGS_CODES = new Set<number>(Object.values(MarkingsErrorCode));

/**
 * A rule's `code` must be one the service answers with: a markings error code or an enrollment
 * cause code (docs/design.md 2.3). Which `status` goes with it is the rule's business (3.3).
 */
function isKnownCode(code: number): boolean {
  return MARKINGS_CODES.has(code) || causeByCode(code) !== undefined;
}

/** Why a value is not a valid fault rule, or undefined. */
export function faultRuleProblem(raw: unknown): string | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return 'must be an object';
  const r = raw as Record<string, unknown>;
  const unknown = Object.keys(r).find((k) => !FAULT_FIELDS.includes(k));
  if (unknown) return `unknown field "${unknown}"`;
  if (r.method !== undefined) {
    if (typeof r.method !== 'string') return 'method must be a string';
    if (!FAULT_METHODS.includes(r.method.toUpperCase())) {
      return `method "${r.method}" is not one of ${FAULT_METHODS.join(', ')}`;
    }
  }
  if (r.path !== undefined) {
    if (typeof r.path !== 'string') return 'path must be a string';
    if (r.path === '') return 'path must not be empty (leave it out to match every path)';
    if (!r.path.startsWith('/') && r.path !== '*') {
      return `path "${r.path}" must start with / (a trailing * matches a prefix)`;
    }
  }
  if (r.code !== undefined) {
    if (!Number.isInteger(r.code)) return 'code must be an integer';
    if (!isKnownCode(r.code as number)) {
      return `code ${String(r.code)} is neither a markings error code nor an enrollment cause code`;
    }
  }
  if (
    r.status !== undefined &&
    !(Number.isInteger(r.status) && (r.status as number) >= 400 && (r.status as number) <= 599)
  ) {
    return 'status must be an HTTP error status (400-599)';
  }
  if (
    r.probability !== undefined &&
    !(typeof r.probability === 'number' && r.probability >= 0 && r.probability <= 1)
  ) {
    return 'probability must be a number from 0 to 1';
  }
  if (r.times !== undefined) {
    if (!(Number.isInteger(r.times) && (r.times as number) >= 1)) {
      return 'times must be a positive integer';
    }
    if (!Number.isSafeInteger(r.times)) return `times must be at most ${Number.MAX_SAFE_INTEGER}`;
  }
  if (r.code === undefined && r.status === undefined) return 'a rule needs a status or a code';
  return undefined;
}

/**
 * `--fault` text: `status=503,path=/v2/dev/markings*,times=2` or a JSON object. Returns the rule or
 * a problem.
 */
export function parseFaultText(text: string): FaultRule | string {
  let raw: unknown;
  if (text.trim().startsWith('{')) {
    try {
      raw = JSON.parse(text);
    } catch {
      return 'not valid JSON';
    }
  } else {
    const fields = new Map<string, unknown>();
    for (const part of text.split(',')) {
      const eq = part.indexOf('=');
      if (eq < 0) return `"${part}" is not key=value`;
      const key = part.slice(0, eq).trim();
      const value = part.slice(eq + 1).trim();
      if (fields.has(key)) return `${key} is given twice`;
      fields.set(key, NUMERIC_FIELDS.has(key) && DECIMAL.test(value) ? Number(value) : value);
    }
    raw = Object.fromEntries(fields);
  }
  return faultRuleProblem(raw) ?? (raw as FaultRule);
}

/**
 * Fault rules given on the command line (`mock serve --fault`, `mock faults set`): a bad one is
 * a usage error (exit 2), as any bad argument is; the same rule in a seed file or a request body
 * is invalid input (exit 3).
 */
export function faultRulesFromArguments(
  texts: string[],
  message: (text: string, problem: string) => string,
): FaultRule[] {
  return texts.map((text) => {
    const rule = parseFaultText(text);
    if (typeof rule === 'string') throw new UsageError(message(text, rule));
    return rule;
  });
}

interface ActiveRule {
  rule: FaultRule;
  remaining: number;
}

/** The current fault rules; the first rule that matches and fires wins. */
export class FaultSet {
  private active: ActiveRule[] = [];

  constructor(
    private readonly random: () => number = Math.random,
    /** Called when the rules or what is left of their `times` change (the durable state). */
    private readonly onChange: () => void = () => undefined,
  ) {}

  replace(rules: FaultRule[]): void {
    this.active = rules.map((rule) => ({
      rule,
      remaining: rule.times ?? Number.POSITIVE_INFINITY,
    }));
    this.onChange();
  }

  list(): FaultRule[] {
    return this.active
      .filter((a) => a.remaining > 0)
      .map((a) => (a.rule.times === undefined ? a.rule : { ...a.rule, times: a.remaining }));
  }

  /** The rule that fires for this request, if any (spending one of its `times`). */
  fire(method: string, path: string): FaultRule | undefined {
    for (const a of this.active) {
      if (a.remaining <= 0) continue;
      const { rule } = a;
      if (rule.method !== undefined && rule.method.toUpperCase() !== method) continue;
      if (rule.path !== undefined && !pathMatches(rule.path, path)) continue;
      if (rule.probability !== undefined && this.random() >= rule.probability) continue;
      a.remaining--;
      if (rule.times !== undefined) this.onChange();
      return rule;
    }
    return undefined;
  }
}

function pathMatches(pattern: string, path: string): boolean {
  return pattern.endsWith('*') ? path.startsWith(pattern.slice(0, -1)) : pattern === path;
}
