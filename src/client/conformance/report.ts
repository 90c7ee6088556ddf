/**
 * What `ksctl conformance` reports, live and `--replay` alike: each scenario's result with its
 * request and differences, a summary, the legend of what is not compared, and the same as JUnit
 * XML for CI.
 */
import { type Comparison, type Difference, differenceLine, LEGEND } from './compare.js';

export type ScenarioOutcome = 'same' | 'differs' | 'skipped';

export interface ScenarioResult {
  name: string;
  result: ScenarioOutcome;
  /** The request compared, as the service was sent it: `GET /markings?limit=2`. */
  request: string | null;
  differences: Difference[];
  /** One line: why it was skipped, or what differs first. */
  reason: string;
  /** The status each side answered, when both were asked. */
  status?: { target: number; mock: number };
}

/** A marking of the run that the service did not delete, and how to remove it. */
export interface LeftBehind {
  name: string;
  reason: string;
  command: string;
}

export interface ConformanceSummary {
  /** The service compared (its markings base URL), or the recording's target. */
  target: string;
  mode: 'read-only' | 'write' | 'replay';
  total: number;
  same: number;
  differs: number;
  skipped: number;
  /** What is not compared, and why. */
  legend: readonly string[];
  /** --write: the prefix of the run's markings. */
  prefix?: string;
  /** --write: markings of the run the service refused to delete. */
  leftBehind?: LeftBehind[];
  /** --replay: exchanges that were not markings requests, which are not replayed. */
  notReplayed?: number;
  /** --replay: what the mock started from (a --seed, or what the recording read), in words. */
  start?: string;
  /** Ctrl-C stopped the run: the scenarios after it did not run. */
  interrupted?: boolean;
}

export interface ConformanceReport {
  scenarios: ScenarioResult[];
  summary: ConformanceSummary;
}

export function skipped(
  name: string,
  reason: string,
  request: string | null = null,
): ScenarioResult {
  return { name, result: 'skipped', request, differences: [], reason };
}

export function compared(
  name: string,
  request: string,
  comparison: Comparison,
  status: { target: number; mock: number },
): ScenarioResult {
  const { differences, more } = comparison;
  if (differences.length === 0) {
    return { name, result: 'same', request, differences, reason: '', status };
  }
  const count = differences.length + more;
  const first = differenceLine(differences[0]!);
  return {
    name,
    result: 'differs',
    request,
    differences,
    reason: count === 1 ? first : `${first} (and ${count - 1} more)`,
    status,
  };
}

export function summarize(
  scenarios: ScenarioResult[],
  summary: Omit<ConformanceSummary, 'total' | 'same' | 'differs' | 'skipped' | 'legend'>,
): ConformanceReport {
  const count = (outcome: ScenarioOutcome) => scenarios.filter((s) => s.result === outcome).length;
  return {
    scenarios,
    summary: {
      ...summary,
      total: scenarios.length,
      same: count('same'),
      differs: count('differs'),
      skipped: count('skipped'),
      legend: LEGEND,
    },
  };
}

// XML 1.0 allows no control characters but tab, newline and carriage return, escaped or not.
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;

function xml(text: string): string {
  return text
    .replace(NOT_XML, '\ufffd')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

/** The report as JUnit XML: a test case per scenario, a failure per difference found. */
export function junitXml(report: ConformanceReport): string {
  const { summary } = report;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="ksctl conformance" tests="${summary.total}" failures="${summary.differs}" skipped="${summary.skipped}">`,
    `  <testsuite name="${xml(`ksctl conformance ${summary.mode} ${summary.target}`)}" tests="${summary.total}" failures="${summary.differs}" skipped="${summary.skipped}" errors="0">`,
  ];
  for (const scenario of report.scenarios) {
    const open = `    <testcase classname="ksctl.conformance" name="${xml(scenario.name)}"`;
    if (scenario.result === 'same') {
      lines.push(`${open}/>`);
    } else if (scenario.result === 'skipped') {
      lines.push(
        `${open}>`,
        `      <skipped message="${xml(scenario.reason)}"/>`,
        '    </testcase>',
      );
    } else {
      const body = [`${scenario.request ?? ''}`, ...scenario.differences.map(differenceLine)].join(
        '\n',
      );
      lines.push(
        `${open}>`,
        `      <failure message="${xml(scenario.reason)}" type="differs">${xml(body)}</failure>`,
        '    </testcase>',
      );
    }
  }
  lines.push('  </testsuite>', '</testsuites>', '');
  return lines.join('\n');
}
