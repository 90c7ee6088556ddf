import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * Device requests (issue 8) against a mock in its own process, with one device enrolled by
 * ksctl: one-key creates against idling as long as 10 ms per create would take, and the keys per
 * second of that one device at concurrency 2 against concurrency 1.
 */

const BIN = new URL('../../bin/ksctl.js', import.meta.url).pathname;
const LOAD = new URL('../lib/keys-load.js', import.meta.url).pathname;
const CREATES = 300;
const BUDGET_MS = 10;
/**
 * Round trips both sides of `keys` make before the timed part, four at a time (their code is then
 * compiled). With 200 much of the compiling was still to come in the timed part: a key cost the
 * load and the mock half as much again as after 2,000 (issue 26).
 */
const WARM_UP = 1500;
/** Round trips in flight at once in the rows that keep several going (a load test's client). */
const IN_FLIGHT = 4;

/** Enrolls one device into `dir/profiles.pt` with the real CLI. */
export async function enrollDevice(h, mock) {
  const dir = await h.tempDir('ksctl-bench-keys-');
  const profiles = join(dir, 'profiles.pt');
  const { info } = mock;
  await promisify(execFile)(
    process.execPath,
    [BIN, 'enroll', '--mock-user', 'alice', '--persistor-path', profiles],
    {
      env: {
        PATH: process.env.PATH ?? '',
        KSCTL_CONFIG_DIR: dir,
        KSCTL_BASE_URL: info.baseUrl,
        KSCTL_TOKEN: info.token,
        KSCTL_KEYSPACE: info.keyspace,
        KSCTL_API_URL: info.apiUrl,
        KSCTL_ENROLLMENT_URL: info.enrollmentUrl,
      },
    },
  );
  return profiles;
}

function load(label, profiles, extra, notes) {
  return {
    label,
    argv: [process.execPath, LOAD, '--profiles', profiles, ...extra],
    env: { PATH: process.env.PATH ?? '' },
    verify: (out) => {
      const result = JSON.parse(out.toString('utf8'));
      if (extra.includes('--create') && result.created !== CREATES) {
        return `${result.created} of ${CREATES} keys created`;
      }
      if (notes && result.createMs !== undefined) {
        notes.push(
          `${label}, warm-up run: ${result.perSecond} keys/s; median in-process one-key create ${result.createMs} ms, create + fetch ${result.roundTripMs} ms (target < ${BUDGET_MS} ms)`,
        );
      }
      return undefined;
    },
  };
}

/** (g) Key create round trip: one key per request, against the 10 ms budget. */
export const keysRoundTrip = {
  name: 'keys-round-trip',
  title: `${CREATES} one-key creates of one enrolled device against idling ${(CREATES * BUDGET_MS) / 1000} s (A/B ≤ 1 ⇔ < ${BUDGET_MS} ms a key)`,
  runs: 5,
  warmups: 1,
  async setup(h) {
    const mock = await h.mock([]);
    const profiles = await enrollDevice(h, mock);
    const notes = [
      'both sides load the profile and make the fingerprint known first; no RSA work after enrollment',
    ];
    return {
      notes,
      benchmarks: [
        {
          name: 'create',
          a: load(`create ${CREATES} keys`, profiles, ['--create', String(CREATES)], notes),
          b: load(`idle ${CREATES * BUDGET_MS} ms`, profiles, [
            '--idle',
            String(CREATES * BUDGET_MS),
          ]),
          target: { atMost: 1 },
        },
      ],
    };
  },
};

/** (h) Keys per second of one device: two requests in flight against one. */
export const keysConcurrency = {
  name: 'keys-concurrency',
  title: `${CREATES} one-key creates of one device, concurrency 2 against 1 (A/B < 1: faster)`,
  runs: 5,
  warmups: 1,
  async setup(h) {
    const mock = await h.mock([]);
    const profiles = await enrollDevice(h, mock);
    const notes = [];
    const at = (c) =>
      load(
        `create ${CREATES} keys, concurrency ${c}`,
        profiles,
        ['--create', String(CREATES), '--concurrency', String(c)],
        notes,
      );
    return {
      notes,
      benchmarks: [{ name: 'concurrency', a: at(2), b: at(1), target: { atMost: 1 } }],
    };
  },
};

/** The median of the numbers, or undefined when there are none. */
function medianOf(values) {
  const sorted = values.filter((v) => typeof v === 'number').sort((a, b) => a - b);
  if (sorted.length === 0) return undefined;
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * (issues 16, 26) Keys created and fetched back: one device, one key per create, one request at a
 * time, in each dialect, against idling as long as 1,000 keys a second would take (both sides
 * make WARM_UP round trips first, so the timed ones run compiled, as in a client that has been
 * running for a while); and v2.4
 * beside v2.3 (v2.4 signs and checks mutable attributes too: one more GCM seal and HMAC per key,
 * and both signatures in the key's AAD; at most 10 % more). GET /_mock/health is timed from a
 * thread of the load's own meanwhile (issue 26: median < 20 ms). The notes give, per dialect, the
 * medians over every measured run: keys per second, the health check's median and p95, and the
 * CPU time one key cost the load and the mock (where the time went); and the same with IN_FLIGHT
 * round trips in flight at once (both processes then work at the same time, as a load test's
 * client on a machine of several cores makes them: one request at a time, each waits for the
 * other).
 */
export const keys = {
  name: 'keys',
  title: `${CREATES} create + fetch round trips of one device, in each dialect`,
  runs: 5,
  warmups: 1,
  async setup(h) {
    const mock = await h.mock([]);
    const profiles = await enrollDevice(h, mock);
    const health = `${new URL(mock.info.baseUrl).origin}/_mock/health`;
    const notes = [];
    /** What each load reported, by its label: every measured run's figures. */
    const seen = new Map();
    const summarize = () => {
      notes.length = 0;
      for (const [label, results] of seen) {
        const m = (pick, digits = 1) => {
          const value = medianOf(results.map(pick));
          return value === undefined ? '?' : Number(value.toFixed(digits));
        };
        const where = `; CPU per key: load ${m((r) => r.cpuMsPerKey, 2)} ms, mock ${m((r) => r.mockCpuMsPerKey, 2)} ms`;
        notes.push(
          `${label}: ${m((r) => r.perSecond, 0)} keys/s created and fetched back (target ≥ 1,000); /_mock/health meanwhile median ${m((r) => r.health.medianMs)} ms, p95 ${m((r) => r.health.p95Ms)} ms (target median < 20 ms); median create ${m((r) => r.createMs, 2)} ms, fetch ${m((r) => r.fetchMs, 2)} ms${where} (medians of ${results.length} runs)`,
        );
      }
      notes.push(
        "CPU per key: the load process's main thread (the health thread apart) and the whole mock (the health checks it answers included), over the timed round trips; bench/README.md says where it goes",
      );
    };
    const trips = (version, inFlight = 1) => {
      const label = `v${version}${inFlight > 1 ? `, ${inFlight} in flight` : ''}`;
      if (!seen.has(label)) seen.set(label, []);
      return {
        label: `${label}: ${CREATES} round trips`,
        argv: [
          process.execPath,
          LOAD,
          '--profiles',
          profiles,
          '--round-trips',
          String(CREATES),
          '--in-flight',
          String(inFlight),
          '--warm-up',
          String(WARM_UP),
          '--api-version',
          version,
          '--health',
          health,
          '--mock-pid',
          String(mock.pid),
        ],
        env: { PATH: process.env.PATH ?? '' },
        // The round trips alone, against the idle side's wait: the warm-up takes seconds.
        timed: (out) => JSON.parse(out.toString('utf8')).timedMs,
        verify: (out) => {
          const result = JSON.parse(out.toString('utf8'));
          if (result.roundTrips !== CREATES) {
            return `${result.roundTrips} of ${CREATES} round trips`;
          }
          return undefined;
        },
        observe: (out) => {
          seen.get(label).push(JSON.parse(out.toString('utf8')));
          summarize();
        },
      };
    };
    const idle = {
      ...load(`idle ${CREATES} ms (1,000 keys/s)`, profiles, [
        '--idle',
        String(CREATES),
        '--warm-up',
        String(WARM_UP),
      ]),
      timed: (out) => JSON.parse(out.toString('utf8')).timedMs,
    };
    return {
      notes,
      benchmarks: [
        { name: 'v2.4 against 1,000 keys/s', a: trips('2.4'), b: idle, target: { atMost: 1 } },
        { name: 'v2.3 against 1,000 keys/s', a: trips('2.3'), b: idle, target: { atMost: 1 } },
        { name: 'v2.4 against v2.3', a: trips('2.4'), b: trips('2.3'), target: { atMost: 1.1 } },
        {
          name: `v2.4, ${IN_FLIGHT} in flight, against 1,000 keys/s`,
          a: trips('2.4', IN_FLIGHT),
          b: idle,
          target: { atMost: 1 },
        },
        {
          name: `v2.3, ${IN_FLIGHT} in flight, against 1,000 keys/s`,
          a: trips('2.3', IN_FLIGHT),
          b: idle,
          target: { atMost: 1 },
        },
      ],
    };
  },
};
