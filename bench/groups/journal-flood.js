const LOAD = new URL('../lib/journal-flood-load.js', import.meta.url).pathname;
const CONNECTIONS = 8;
const BODY_KIB = 200;
const REQUESTS = 1_500;

/**
 * (issue 34) `/_mock/health` while 8 clients flood the mock with 200 KiB bodies (which the
 * journal keeps the first 64 KiB of, redacted), and while a reader walks the whole journal with
 * bodies page by page meanwhile, against health on an idle mock. Target: every health answer
 * under 100 ms in both phases (the notes give median, p99 and max), and the mock's resident
 * memory within the journal's bound (4 MiB of entries, 16 MiB of messages) above an idle mock's.
 */
function load(label, mock, idle, notes) {
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
    // Timed by the worst health check it saw, in either phase.
    timed: (out) => {
      const r = JSON.parse(out.toString('utf8'));
      return Math.max(r.flood.maxMs, r.reads.maxMs);
    },
    verify: (out) => {
      const r = JSON.parse(out.toString('utf8'));
      if (r.flood.probes === 0 || r.reads.probes === 0) return 'no health check in a phase';
      if (!idle && r.pages === 0) return 'the journal was not read';
      const phase = (name, p) =>
        `${name}: health median ${p.medianMs} ms, p99 ${p.p99Ms} ms, max ${p.maxMs} ms (${p.probes} checks)`;
      notes.push(
        `${label} (warm-up run): ${phase('during the flood', r.flood)}; ${phase('during the journal reads', r.reads)}` +
          (idle
            ? `; mock RSS ${r.rssMiB.end} MiB`
            : `; ${r.requests} requests (${Object.entries(r.statuses)
                .map(([status, n]) => `${n}× ${status}`)
                .join(
                  ', ',
                )}), ${r.pages} pages (${r.journalMiB} MiB) of the journal read; mock RSS peak ${r.rssMiB.peak} MiB, at the end ${r.rssMiB.end} MiB`),
      );
      return undefined;
    },
  };
}

export default {
  name: 'journal-flood',
  title: `the worst health check while ${CONNECTIONS} clients send ${REQUESTS.toLocaleString('en')} requests of ${BODY_KIB} KiB and the journal is read back with bodies, against an idle mock (ms)`,
  runs: 1,
  warmups: 1,
  async setup(h) {
    const mock = await h.mock([]);
    const notes = [
      `A: ${CONNECTIONS} connections POST ${BODY_KIB} KiB JSON bodies to /v2/dev/markings; from half-way a reader walks GET /_mock/requests?bodies=true page by page twice; B: health checks alone`,
    ];
    return {
      notes,
      benchmarks: [
        {
          name: 'journal flood',
          a: load('health during the flood and the reads', mock, false, notes),
          b: load('health on an idle mock', mock, true, notes),
        },
      ],
    };
  },
};
