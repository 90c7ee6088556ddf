import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { bytes } from '../lib/report.js';

/**
 * (issue 24) The mock console: its assets' size; its first render in Chromium with 20,000
 * markings (the Markings page's first page on screen), against the sign-in screen's; and, with
 * the mock answering 500 requests a second for ten seconds, how many events the Requests page
 * receives and what the mock's CPU costs with the console open and with it closed.
 */

const PROBE = new URL('../lib/console-probe.js', import.meta.url).pathname;
const CONSOLE = new URL('../../console/', import.meta.url).pathname;
const MARKINGS = 20_000;
const RATE = 500;
const SECONDS = 10;
const LOAD_RUNS = 3;

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

function assetsNote() {
  const all = files(CONSOLE);
  const raw = all.reduce((sum, file) => sum + statSync(file).size, 0);
  const gzip = all.reduce((sum, file) => sum + gzipSync(readFileSync(file)).length, 0);
  return `the console's assets: ${all.length} files, ${bytes(raw)} (${bytes(gzip)} gzipped), no library`;
}

function probeArgs(mock, mode, extra = []) {
  return [
    PROBE,
    '--mode',
    mode,
    '--url',
    mock.info.url,
    '--base-url',
    mock.info.baseUrl,
    '--token',
    mock.info.token,
    '--pid',
    String(mock.pid),
    ...extra,
  ];
}

const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];

/** The load runs, open and closed alternately; the notes give the medians. */
async function loadNotes(mock) {
  const runs = { open: [], closed: [] };
  for (let i = 0; i < LOAD_RUNS; i++) {
    for (const side of i % 2 ? ['closed', 'open'] : ['open', 'closed']) {
      const extra = ['--rate', String(RATE), '--seconds', String(SECONDS)];
      if (side === 'open') extra.push('--open');
      const { stdout } = await promisify(execFile)(
        process.execPath,
        probeArgs(mock, 'load', extra),
        { timeout: 300_000 },
      ).catch((error) => {
        throw new Error(`the ${side} load run failed: ${error.stderr || error.message}`);
      });
      runs[side].push(JSON.parse(stdout));
    }
  }
  const m = (side, key) => median(runs[side].map((r) => r[key]));
  // Per second of what each run really took: a busy machine stretches the load (up to twice
  // SECONDS), and dividing by SECONDS once read 8 events/s off a stream that sends at most 4.
  const perSecond = (side, key, over) => median(runs[side].map((r) => r[key] / r[over]));
  return [
    `the Requests page at ${RATE} requests/s asked for ${SECONDS} s (median of ${LOAD_RUNS}): ` +
      `${perSecond('open', 'events', 'eventSeconds').toFixed(1)} events/s carrying ` +
      `${Math.round(perSecond('open', 'entries', 'eventSeconds'))} requests/s; ` +
      `load sent at ${Math.round(perSecond('open', 'answered', 'seconds'))} requests/s; ` +
      `longest long task ${Math.round(m('open', 'longest'))} ms`,
    `the mock's CPU under that load: ${m('open', 'cpuPercent')}% with the console open ` +
      `(${m('open', 'cpuSeconds')} s), ${m('closed', 'cpuPercent')}% with it closed ` +
      `(${m('closed', 'cpuSeconds')} s); answered ${m('open', 'answered')} and ` +
      `${m('closed', 'answered')} of ${RATE * SECONDS}`,
  ];
}

export default {
  name: 'console',
  title: `the mock console in Chromium: first render with ${MARKINGS.toLocaleString('en')} markings, and the mock at ${RATE} requests/s with it open and closed`,
  runs: 5,
  warmups: 1,
  async setup(h) {
    const mock = await h.mock([{ count: MARKINGS, values: 2, prefix: 'load' }]);
    const notes = [assetsNote(), ...(await loadNotes(mock))];
    const render = (mode, label) => ({
      label,
      argv: [process.execPath, ...probeArgs(mock, mode)],
      env: { PATH: process.env.PATH ?? '' },
      verify: (out) => {
        const { firstRenderMs } = JSON.parse(out.toString('utf8'));
        if (typeof firstRenderMs !== 'number') return 'no first render time';
        notes.push(`${label}: first render ${firstRenderMs} ms after navigation (warm-up run)`);
        return undefined;
      },
    });
    return {
      notes,
      benchmarks: [
        {
          name: 'first render',
          a: render('render', `Markings page, ${MARKINGS.toLocaleString('en')} markings`),
          b: render('signin', 'sign-in screen'),
        },
      ],
    };
  },
};
