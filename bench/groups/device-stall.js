import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { enrollDevice } from './keys.js';

/**
 * (issue 17) `/_mock/health` while one device sends the worst fetches there are, against health
 * on an idle mock: the device holds 20,000 keys and sends, one after the other, 1,000 empty
 * queries (which used to make a 379 MB answer and hold the mock for 12-40 s; now refused before
 * any work), the most queries the bound lets through, and a query matching every key. Target: every health answer under
 * 100 ms (the notes give the maximum).
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
      if (r.probes !== PROBES) return `${r.probes} of ${PROBES} health checks answered`;
      const fetches = Object.entries(r.fetches)
        .map(([status, n]) => `${n}× ${status}`)
        .join(', ');
      if (hostile && fetches === '') return 'no fetch was sent meanwhile';
      notes.push(
        `${label} (warm-up run): health median ${r.medianMs} ms, p95 ${r.p95Ms} ms, max ${r.maxMs} ms${fetches ? `; fetches meanwhile: ${fetches}` : ''}`,
      );
      return undefined;
    },
  };
}

export default {
  name: 'device-stall',
  title: `${PROBES} health checks while a device with ${KEYS.toLocaleString('en')} keys sends the worst fetches, against an idle mock`,
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
