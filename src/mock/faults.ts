import type { FaultRule } from '../api/wire.js';

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

/** Why a value is not a valid fault rule, or undefined. */
export function faultRuleProblem(raw: unknown): string | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return 'must be an object';
  const r = raw as Record<string, unknown>;
  const known = new Set(['method', 'path', 'code', 'status', 'probability', 'times']);
  const unknown = Object.keys(r).find((k) => !known.has(k));
  if (unknown) return `unknown field "${unknown}"`;
  if (r.method !== undefined && typeof r.method !== 'string') return 'method must be a string';
  if (r.path !== undefined && typeof r.path !== 'string') return 'path must be a string';
  if (r.code !== undefined && !Number.isInteger(r.code)) return 'code must be an integer';
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
  if (r.times !== undefined && !(Number.isInteger(r.times) && (r.times as number) >= 1)) {
    return 'times must be a positive integer';
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
    const rule: Record<string, unknown> = {};
    for (const part of text.split(',')) {
      const eq = part.indexOf('=');
      if (eq < 0) return `"${part}" is not key=value`;
      const key = part.slice(0, eq).trim();
      const value = part.slice(eq + 1).trim();
      rule[key] = ['code', 'status', 'times', 'probability'].includes(key) ? Number(value) : value;
    }
    raw = rule;
  }
  return faultRuleProblem(raw) ?? (raw as FaultRule);
}

interface ActiveRule {
  rule: FaultRule;
  remaining: number;
}

/** The current fault rules; the first rule that matches and fires wins. */
export class FaultSet {
  private active: ActiveRule[] = [];

  constructor(private readonly random: () => number = Math.random) {}

  replace(rules: FaultRule[]): void {
    this.active = rules.map((rule) => ({
      rule,
      remaining: rule.times ?? Number.POSITIVE_INFINITY,
    }));
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
      return rule;
    }
    return undefined;
  }
}

function pathMatches(pattern: string, path: string): boolean {
  return pattern.endsWith('*') ? path.startsWith(pattern.slice(0, -1)) : pattern === path;
}
