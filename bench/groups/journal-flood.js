import { liveMemory } from '../lib/heap-report.js';

const LOAD = new URL('../lib/journal-flood-load.js', import.meta.url).pathname;
const CONNECTIONS = 8;
const BODY_KIB = 200;
/**
 * The issue's flood is 20,000 requests (`KSCTL_BENCH_FLOOD_REQUESTS=20000`, several minutes a
 * run on two shared cores); `npm run bench` sends fewer, enough to fill the journal's bound of
 * bodies several times over before the reads start.
 */
const REQUESTS = floodRequests(process.env.KSCTL_BENCH_FLOOD_REQUESTS);
/**
 * The journal's stated bound (src/mock/journal/request-journal.ts): entries, kept messages and
 * messages waiting for their redaction, MiB.
 */
const JOURNAL_BOUND_MIB = 4 + 16 + 4;

function floodRequests(given) {
  if (given === undefined || given === '') return 2_000;
  if (!/^\d{1,7}$/.test(given) || Number(given) < 16) {
    throw new Error(`KSCTL_BENCH_FLOOD_REQUESTS must be a whole number from 16, not "${given}"`);
  }
  return Number(given);
}

/**
 * (issue 34) `/_mock/health` while 8 clients keep large markings in step with the mock (200 KiB
 * bodies, which the journal keeps the first 64 KiB of, redacted, and as much of each answer), and
 * while a reader walks the whole journal page by page meanwhile, with bodies and without, against
 * health on an idle mock of its own. Target: every health answer under 100 ms in both phases (the
 * notes give median, p99 and max of each run), and the flooded mock's resident memory within the
 * journal's bound above the idle mock's.
 */
function load(label, mock, idle, notes) {
  const note = (run, r) => {
    const phase = (name, p) =>
      `${name}: health median ${p.medianMs} ms, p99 ${p.p99Ms} ms, max ${p.maxMs} ms (${p.probes} checks)`;
    const over = r.rssMiB.peak - mock.idleRssMiB;
    const mib = (n) => Math.round(n * 10) / 10;
    const total = (m) => m.heapMiB + m.arrayBuffersMiB;
    const liveNote =
      `live after full collections ${r.live.heapMiB} MiB of heap and ${r.live.arrayBuffersMiB} MiB of buffers ` +
      `(${mib(total(r.live) - total(mock.startLive))} MiB over the mock's ${mib(total(mock.startLive))} MiB at its start), ` +
      `of which a reset let go ${mib(total(r.live) - total(r.afterReset))} MiB (the journal; its bound: ${JOURNAL_BOUND_MIB} MiB)`;
    notes.push(
      `${label} (${run}): ${phase('during the flood', r.flood)}; ${phase('during the journal reads', r.reads)}` +
        (idle
          ? `; mock RSS ${r.rssMiB.end} MiB; ${liveNote}`
          : `; ${r.requests} requests (${Object.entries(r.statuses)
              .map(([status, n]) => `${n}× ${status}`)
              .join(
                ', ',
              )}), ${r.pages} pages with bodies and ${r.plainPages} without (${r.journalMiB} MiB) of the journal read; ` +
            `mock RSS at the start ${r.rssMiB.start} MiB, peak ${r.rssMiB.peak} MiB, at the end ${r.rssMiB.end} MiB: ` +
            `${over} MiB over the idle mock's ${mock.idleRssMiB} MiB; ${liveNote}`),
    );
  };
  return {
    label,
    argv: [
      process.execPath,
      LOAD,
      '--url',
      mock.info.url,
      '--token',
      mock.info.token,
      '--pid',
      String(mock.pid),
      '--connections',
      String(CONNECTIONS),
      '--requests',
      String(REQUESTS),
      '--body-kib',
      String(BODY_KIB),
      ...(idle ? ['--idle'] : []),
    ],
    env: { PATH: process.env.PATH ?? '' },
    // The full flood takes minutes on two busy cores: 60 ms a request at the least.
    timeoutMs: Math.max(120_000, REQUESTS * 60),
    // Timed by the worst health check it saw, in either phase.
    timed: (out) => {
      const r = JSON.parse(out.toString('utf8'));
      note('timed run', r);
      return Math.max(r.flood.maxMs, r.reads.maxMs);
    },
    verify: (out) => {
      const r = JSON.parse(out.toString('utf8'));
      if (r.flood.probes === 0 || r.reads.probes === 0) return 'no health check in a phase';
      if (!idle) {
        if (r.pages === 0 || r.plainPages === 0) return 'the journal was not read';
        const answered = (r.statuses[200] ?? 0) + (r.statuses[201] ?? 0);
        if (answered !== r.requests)
          return `not every request succeeded: ${JSON.stringify(r.statuses)}`;
      }
      note('warm-up run', r);
      return undefined;
    },
  };
}

/** The resident memory of a process, in MiB. */
async function rssMiB(pid) {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  return Math.round(Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0) / 1024);
}

export default {
  name: 'journal-flood',
  title: `the worst health check while ${CONNECTIONS} clients send ${REQUESTS.toLocaleString('en')} requests of ${BODY_KIB} KiB and the journal is read back, against an idle mock (ms)`,
  runs: 1,
  warmups: 1,
  async setup(h) {
    const flooded = await h.mock([]);
    const idle = await h.mock([]);
    // Both mocks as started; the idle one is read again after its runs (health checks alone).
    flooded.idleRssMiB = await rssMiB(flooded.pid);
    idle.idleRssMiB = flooded.idleRssMiB;
    flooded.startLive = await liveMemory(flooded.pid);
    idle.startLive = await liveMemory(idle.pid);
    const notes = [
      `A: ${CONNECTIONS} connections each create a marking of ${BODY_KIB} KiB of values, then update it with that body, ${REQUESTS.toLocaleString('en')} requests in all (KSCTL_BENCH_FLOOD_REQUESTS); ` +
        'from half-way a reader walks GET /_mock/requests page by page, with bodies and without, twice; B: health checks alone, on a mock of its own',
    ];
    return {
      notes,
      benchmarks: [
        {
          name: 'journal flood',
          a: load('health during the flood and the reads', flooded, false, notes),
          b: load('health on an idle mock', idle, true, notes),
        },
      ],
    };
  },
};
