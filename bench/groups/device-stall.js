import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { enrollDevice } from './keys.js';

/**
 * (issue 17) `/_mock/health` while one device sends the worst requests there are, against health
 * on an idle mock: the device starts with 20,000 keys and sends, one after the other, 1,000 empty
 * queries (which used to make a 379 MB answer and hold the mock for 12-40 s; now refused before
 * any work), the most queries the bound lets through, a query matching one key too many, the
 * largest answer (5,000 keys, 100,000 ids), the largest body, a content of too many values, and
 * a create of 10,000 keys. Then the same while an admin sends the worst markings requests (a
 * marking of 100,000 values created, read, updated and deleted; a bulk write of 1,000 markings;
 * a listing of 73 MB). Target: every health answer under 100 ms (the notes give the maximum).
 */

const LOAD = new URL('../lib/device-stall-load.js', import.meta.url).pathname;
const KEYS = 20_000;
const PROBES = 200;

/** `hostile`: undefined (an idle mock), 'device' or 'markings' (whose worst requests run). */
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
      ...(hostile ? ['--hostile', '--kind', hostile] : []),
      ...(hostile === 'markings'
        ? ['--base-url', mock.info.baseUrl, '--token', mock.info.token]
        : []),
    ],
    env: { PATH: process.env.PATH ?? '' },
    verify: (out) => {
      const r = JSON.parse(out.toString('utf8'));
      if (r.probes < PROBES) return `${r.probes} of ${PROBES} health checks answered`;
      const fetches = Object.entries(r.fetches)
        .map(([status, n]) => `${n}× ${status}`)
        .join(', ');
      if (hostile && fetches === '') return 'no request was sent meanwhile';
      const slow = Object.entries(r.slow)
        .map(([what, ms]) => `${ms} ms during ${what}`)
        .join(', ');
      notes.push(
        `${label} (warm-up run): health median ${r.medianMs} ms, p95 ${r.p95Ms} ms, max ${r.maxMs} ms${fetches ? `; requests meanwhile: ${fetches}` : ''}${slow ? `; health over 50 ms: ${slow}` : ''}`,
      );
      return undefined;
    },
  };
}

export default {
  name: 'device-stall',
  title: `${PROBES} health checks while a device with ${KEYS.toLocaleString('en')} keys, or an admin of the markings, sends the worst requests, against an idle mock`,
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
    const notes = [
      'target (issues 17 and 26): every health answer under 100 ms while one client does its worst',
    ];
    return {
      notes,
      benchmarks: [
        {
          name: 'health (device)',
          a: probe('health while the worst device requests run', profiles, mock, 'device', notes),
          b: probe('health on an idle mock', profiles, mock, undefined, notes),
        },
        {
          name: 'health (markings)',
          a: probe(
            'health while the worst markings requests run',
            profiles,
            mock,
            'markings',
            notes,
          ),
          b: probe('health on an idle mock', profiles, mock, undefined, []),
        },
      ],
    };
  },
};
