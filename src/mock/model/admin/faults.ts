/**
 * Fault injection for the mock: `--latency`, and fault rules (method, path, status, or a markings,
 * enrollment cause or device error code, probability, times) from the command line, a seed file
 * or `PUT /_mock/faults`, checked in one place; FaultSet holds the rules in force and picks the
 * one that fires for a request. A rule with a device error code (src/common/device/causes.ts) fires
 * only on a device request that proved its device, from the device routes (fireDevice).
 */
import { HTTP_METHODS } from '../../../common/http/methods.js';
import { MarkingsErrorCode } from '../../../common/markings/wire.js';
import type { FaultRule } from '../../../common/mock/wire.js';
import { type DeviceCause, deviceCause } from '../../../common/device/causes.js';
import { DEVICE_PATHS, type DeviceOperation } from '../../../common/device/wire.js';
import { causeByCode } from '../../../common/enrollment/causes.js';
import { UsageError } from '../../../common/errors.js';

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

const FAULT_FIELDS = ['method', 'path', 'code', 'status', 'probability', 'times'];
const NUMERIC_FIELDS = new Set(['code', 'status', 'probability', 'times']);
/** Only plain decimals are numbers: Number() would read "" as 0 and "0x1f7" as 503. */
const DECIMAL = /^-?(?:\d+(?:\.\d*)?|\.\d+)$/;
const MARKINGS_CODES = new Set<number>(Object.values(MarkingsErrorCode));

/**
 * A rule's `code` must be one the service answers with: a markings error code, an enrollment
 * cause code (docs/design.md 2.3) or a device error code (2.4). Which `status` goes with a
 * markings or cause code is the rule's business (3.3); a device error has its own.
 */
function isKnownCode(code: number): boolean {
  return MARKINGS_CODES.has(code) || causeByCode(code) !== undefined || isDeviceCode(code);
}

function isDeviceCode(code: number | undefined): code is number {
  return code !== undefined && deviceCause(code) !== undefined;
}

/** The device endpoints the mock serves, each with its operation: where a device code fires. */
const DEVICE_ENDPOINTS = new Map<string, DeviceOperation>(
  Object.values(DEVICE_PATHS).flatMap((paths) =>
    Object.entries(paths).map(([operation, path]) => [path, operation as DeviceOperation]),
  ),
);

/** Whether a device error fired by a rule can be the answer of this operation. */
function answersCode(operation: DeviceOperation, cause: DeviceCause): boolean {
  return cause.where !== 'item' || cause.items!.includes(operation);
}

/** Why a rule with a device error code could never fire, or undefined. */
function deviceRuleProblem(code: number, r: Record<string, unknown>): string | undefined {
  const cause = deviceCause(code)!;
  if (r.status !== undefined) {
    return `code ${code} is a device error, which answers with its own status: leave status out`;
  }
  if (typeof r.method === 'string' && r.method.toUpperCase() !== 'POST') {
    return `code ${code} is a device error, and device requests are POSTs: leave method out or make it POST`;
  }
  const operations = [...DEVICE_ENDPOINTS].filter(
    ([path]) => typeof r.path !== 'string' || pathMatches(r.path, path),
  );
  if (operations.length === 0) {
    return `code ${code} is a device error, which fires only on the device endpoints (${[...DEVICE_ENDPOINTS.keys()].join(', ')}); path "${String(r.path)}" matches none of them`;
  }
  if (!operations.some(([, operation]) => answersCode(operation, cause))) {
    return `code ${code} is a per-item error of key ${cause.items!.join(' and ')} only; path "${String(r.path)}" matches none of them`;
  }
  return undefined;
}

/** What a device error fired by a rule says: the cause's words, and that a rule put them there. */
export function injectedMessage(cause: DeviceCause): string {
  return `${cause.message} (injected by a fault rule)`;
}

/** Why a value is not a valid fault rule, or undefined. */
export function faultRuleProblem(raw: unknown): string | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return 'must be an object';
  const r = raw as Record<string, unknown>;
  const unknown = Object.keys(r).find((k) => !FAULT_FIELDS.includes(k));
  if (unknown) return `unknown field "${unknown}"`;
  if (r.method !== undefined) {
    if (typeof r.method !== 'string') return 'method must be a string';
    if (!HTTP_METHODS.includes(r.method.toUpperCase())) {
      return `method "${r.method}" is not one of ${HTTP_METHODS.join(', ')}`;
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
      return `code ${String(r.code)} is neither a markings error code, an enrollment cause code nor a device error code`;
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
  if (isDeviceCode(r.code as number | undefined)) return deviceRuleProblem(r.code as number, r);
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
  /** How many requests it has answered (not state: a restart starts again from 0). */
  hits: number;
}

const activeRule = (rule: FaultRule): ActiveRule => ({
  rule,
  remaining: rule.times ?? Number.POSITIVE_INFINITY,
  hits: 0,
});

/** The current fault rules; the first rule that matches and fires wins. */
export class FaultSet {
  private active: ActiveRule[] = [];

  constructor(
    private readonly random: () => number = Math.random,
    /** Called when the rules or what is left of their `times` change (the durable state). */
    private readonly onChange: () => void = () => undefined,
  ) {}

  replace(rules: FaultRule[]): void {
    this.active = rules.map(activeRule);
    this.onChange();
  }

  list(): FaultRule[] {
    return this.inForce().map((a) => shown(a));
  }

  /** The rules in force as list() gives them, each with how many requests it has answered. */
  listWithHits(): (FaultRule & { hits: number })[] {
    return this.inForce().map((a) => ({ ...shown(a), hits: a.hits }));
  }

  /** Adds a rule after the others (a checked one: faultRuleProblem). */
  add(rule: FaultRule): void {
    this.active = [...this.inForce(), activeRule(rule)];
    this.onChange();
  }

  /** Removes the rule at this index of list(); false when there is none. */
  remove(index: number): boolean {
    const rules = this.inForce();
    if (!(Number.isInteger(index) && index >= 0 && index < rules.length)) return false;
    rules.splice(index, 1);
    this.active = rules;
    this.onChange();
    return true;
  }

  private inForce(): ActiveRule[] {
    return this.active.filter((a) => a.remaining > 0);
  }

  /**
   * The rule that fires for this request before it is routed, if any (spending one of its
   * `times`). Rules with a device error code wait for fireDevice.
   */
  fire(method: string, path: string): FaultRule | undefined {
    return this.first(method, path, (rule) => !isDeviceCode(rule.code));
  }

  /**
   * The device error a rule makes this device request answer, if any (spending one of its
   * `times`): asked by the device routes once the request proved its device and passed the
   * checks answered sealed, so a request that fails on its own never spends a rule.
   */
  fireDevice(method: string, path: string): DeviceCause | undefined {
    const operation = DEVICE_ENDPOINTS.get(path);
    if (operation === undefined) return undefined;
    const rule = this.first(method, path, (r) => {
      const cause = r.code === undefined ? undefined : deviceCause(r.code);
      return cause !== undefined && answersCode(operation, cause);
    });
    return rule && deviceCause(rule.code!);
  }

  private first(
    method: string,
    path: string,
    applies: (rule: FaultRule) => boolean,
  ): FaultRule | undefined {
    for (const a of this.active) {
      if (a.remaining <= 0) continue;
      const { rule } = a;
      if (!applies(rule)) continue;
      if (rule.method !== undefined && rule.method.toUpperCase() !== method) continue;
      if (rule.path !== undefined && !pathMatches(rule.path, path)) continue;
      if (rule.probability !== undefined && this.random() >= rule.probability) continue;
      a.remaining--;
      a.hits++;
      if (rule.times !== undefined) this.onChange();
      return rule;
    }
    return undefined;
  }
}

/** A rule as listed: `times` is what is left of it. */
const shown = (a: ActiveRule): FaultRule =>
  a.rule.times === undefined ? a.rule : { ...a.rule, times: a.remaining };

function pathMatches(pattern: string, path: string): boolean {
  return pattern.endsWith('*') ? path.startsWith(pattern.slice(0, -1)) : pattern === path;
}
