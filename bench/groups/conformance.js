/**
 * `ksctl conformance`, read-only, against a local mock (issue 32: under 10 s). B is ten seconds of
 * nothing, the bound, so A/B at most 1× is the target met; the run is checked to have
 * compared every read-only scenario and found nothing different.
 */
import { seedValues } from '../lib/seed.js';

const TENANT = [{ count: 200, values: 20 }];
const BOUND_MS = 10_000;

function checkReport(out) {
  let report;
  try {
    report = JSON.parse(out.toString('utf8'));
  } catch (error) {
    return `not JSON: ${error.message}`;
  }
  const { summary } = report;
  if (summary?.mode !== 'read-only') return 'not a read-only report';
  if (summary.differs !== 0) return `${summary.differs} scenarios differ`;
  if (summary.same < 20) return `only ${summary.same} scenarios the same`;
  return undefined;
}

export default {
  name: 'conformance',
  title: 'ksctl conformance, read-only, against a local mock of 200 markings',
  runs: 3,
  warmups: 1,
  async setup(h) {
    const mock = await h.mock(TENANT);
    const run = await h.ksctl(['conformance', '-o', 'json'], { mock, verify: checkReport });
    const bound = h.node('10 s (the bound)', ['-e', `setTimeout(() => {}, ${BOUND_MS})`]);
    return {
      notes: [
        `the service: a mock of ${seedValues(TENANT).toLocaleString('en')} values in ${TENANT[0].count} markings, copied into the reference mock by every run`,
        'no keyspace is set, so the two scenarios of the enrollment endpoints are skipped',
      ],
      benchmarks: [{ name: 'read-only catalogue', a: run, b: bound, target: { atMost: 1 } }],
    };
  },
};
