const PROBE = new URL('../lib/mock-probe.js', import.meta.url).pathname;
const PROBES = 400;

/**
 * (g) Valid requests to the mock while maximal bodies are sent to it and rejected, against the
 * same requests on an idle mock. Each side is one process making PROBES requests one after the
 * other, so A/B is the slow-down a client of a mock under attack sees; the notes give the time
 * of one request on each side (the issue's target: under 100 ms under load).
 */
export default {
  name: 'mock-hostile',
  title: `${PROBES} valid requests while 32 MiB bodies are rejected, against an idle mock`,
  runs: 5,
  warmups: 1,
  async setup(h) {
    const mock = await h.mock([]);
    const notes = [
      'A sends 32 MiB + 1 byte (413 while streaming), 32 MiB of `[` (400, too deep) and 32 MiB of unterminated JSON (400) one after the other throughout; B sends nothing',
      'requests alternate GET /_mock/health and GET /v2/dev/markings, one connection, one at a time',
    ];
    const probe = (label, extra) => {
      const command = {
        label,
        argv: [
          process.execPath,
          PROBE,
          '--url',
          mock.info.url,
          '--token',
          mock.info.token,
          '--probes',
          String(PROBES),
          ...extra,
        ],
        env: { PATH: process.env.PATH ?? '' },
      };
      command.verify = (out) => {
        const r = JSON.parse(out.toString('utf8'));
        if (r.probes !== PROBES) return `${r.probes} of ${PROBES} requests answered`;
        const rejected = Object.entries(r.rejected)
          .map(([status, n]) => `${n}× ${status}`)
          .join(', ');
        if (extra.length > 0 && rejected === '') return 'no maximal body was rejected meanwhile';
        notes.push(
          `${label} (warm-up run): one request median ${r.medianMs} ms, p95 ${r.p95Ms} ms, max ${r.maxMs} ms${rejected ? `; bodies rejected meanwhile: ${rejected}` : ''}`,
        );
        return undefined;
      };
      return command;
    };
    return {
      notes,
      benchmarks: [
        {
          name: 'hostile',
          a: probe('requests while maximal bodies are rejected', ['--hostile']),
          b: probe('requests to an idle mock', []),
        },
      ],
    };
  },
};
