import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { enrollDevice } from './keys.js';

/**
 * (issue 17) `/_mock/health` while one device sends the worst requests there are, against health
 * on an idle mock: the device starts with 20,000 keys and sends, one after the other, 1,000 empty
 * queries (which used to make a 379 MB answer and hold the mock for 12-40 s; now refused before
 * any work), the most queries the bound lets through, a query matching one key too many, the
 * largest answer (5,000 keys, 100,000 ids), the largest body, a content of too many values, and
 * a create of 10,000 keys. Target: every health answer under 100 ms (the notes give the maximum).
 */

const LOAD = new URL('../lib/device-stall-load.js', import.meta.url).pathname;
const KEYS = 20_000;
const PROBES = 200;

function probe(label, profiles, mock, hostile, notes) {
  return {
    label,
    argv: [
      process.execPath,
      LOAD,
      '--profiles',
      profiles,
      '--mock',
      mock.info.url,
      '--probes',
      String(PROBES),
      ...(hostile ? ['--hostile'] : []),
    ],
    env: { PATH: process.env.PATH ?? '' },
    verify: (out) => {
      const r = JSON.parse(out.toString('utf8'));
      if (r.probes < PROBES) return `${r.probes} of ${PROBES} health checks answered`;
      const fetches = Object.entries(r.fetches)
        .map(([status, n]) => `${n}× ${status}`)
        .join(', ');
      if (hostile && fetches === '') return 'no device request was sent meanwhile';
      const slow = Object.entries(r.slow)
        .map(([what, ms]) => `${ms} ms during ${what}`)
        .join(', ');
      notes.push(
        `${label} (warm-up run): health median ${r.medianMs} ms, p95 ${r.p95Ms} ms, max ${r.maxMs} ms${fetches ? `; device requests meanwhile: ${fetches}` : ''}${slow ? `; health over 50 ms: ${slow}` : ''}`,
      );
      return undefined;
    },
  };
}

export default {
  name: 'device-stall',
  title: `${PROBES} health checks while a device with ${KEYS.toLocaleString('en')} keys sends the worst requests, against an idle mock`,
  runs: 3,
  warmups: 1,
  async setup(h) {
    const mock = await h.mock([]);
    const profiles = await enrollDevice(h, mock);
    await promisify(execFile)(
      process.execPath,
      [LOAD, '--profiles', profiles, '--setup', String(KEYS)],
      { env: { PATH: process.env.PATH ?? '' } },
    );
    const notes = ['target: every health answer under 100 ms while one client does its worst'];
    return {
      notes,
      benchmarks: [
        {
          name: 'health',
          a: probe('health while the worst fetches run', profiles, mock, true, notes),
          b: probe('health on an idle mock', profiles, mock, false, notes),
        },
      ],
    };
  },
};
