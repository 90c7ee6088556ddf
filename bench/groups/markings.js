import { peakRss } from '../lib/measure.js';
import { bytes } from '../lib/report.js';
import { seedValues } from '../lib/seed.js';

/** Parses the JSON a command printed, or explains why it is not what was expected. */
function checkJson(out, check) {
  let data;
  try {
    data = JSON.parse(out.toString('utf8'));
  } catch (error) {
    return `not JSON: ${error.message}`;
  }
  return check(data);
}

const MANY = [{ count: 10_000, values: 100 }];
const HUGE = [{ count: 1, values: 100_000, prefix: 'huge' }];

/** (b) Listing 10,000 markings of 100 values each, with and without their values. */
export const markingsList = {
  name: 'markings-list',
  title: 'list 10,000 markings of 100 values each, -o json',
  runs: 5,
  warmups: 1,
  async setup(h) {
    const mock = await h.mock(MANY);
    const listed = (withValues) => (out) =>
      checkJson(out, (data) => {
        if (!Array.isArray(data) || data.length !== 10_000) return 'not 10,000 markings';
        const values = data[0].detail.values;
        if (withValues && values?.length !== 100) return 'values missing';
        if (!withValues && values !== undefined) return 'values present';
        return undefined;
      });
    const full = await h.ksctl(['markings', 'list', '-o', 'json'], { mock, verify: listed(true) });
    const lean = await h.ksctl(['markings', 'list', '--value-limit', '0', '-o', 'json'], {
      mock,
      verify: listed(false),
    });
    // Memory must not grow with the listing: pages are streamed out, one page fetched ahead.
    const empty = await h.ksctl(['markings', 'list', '-o', 'json'], { mock: await h.mock([]) });
    const [fullRss, leanRss, emptyRss] = [
      await peakRss(full),
      await peakRss(lean),
      await peakRss(empty),
    ];
    return {
      notes: [
        `mock built with ${seedValues(MANY).toLocaleString('en')} values in ${(mock.seedMs / 1000).toFixed(1)} s`,
        `peak RSS: full listing ${bytes(fullRss)}, --value-limit 0 ${bytes(leanRss)}, an empty tenant ${bytes(emptyRss)}`,
      ],
      benchmarks: [{ name: 'list', a: full, b: lean, target: { atLeast: 10 } }],
    };
  },
};

/** (c) One marking with 100,000 values, with and without its values. */
export const markingsGet = {
  name: 'markings-get',
  title: 'get one marking of 100,000 values, -o json',
  runs: 7,
  warmups: 1,
  async setup(h) {
    const mock = await h.mock(HUGE);
    const got = (withValues) => (out) =>
      checkJson(out, (data) => {
        const values = data.detail?.values;
        if (data.detail?.valueCount !== 100_000) return 'not the marking of 100,000 values';
        if (withValues && values?.length !== 100_000) return 'values missing';
        if (!withValues && values !== undefined) return 'values present';
        return undefined;
      });
    const full = await h.ksctl(['markings', 'get', 'huge-0', '-o', 'json'], {
      mock,
      verify: got(true),
    });
    const lean = await h.ksctl(['markings', 'get', 'huge-0', '--value-limit', '0', '-o', 'json'], {
      mock,
      verify: got(false),
    });
    return {
      notes: [
        `mock built with ${seedValues(HUGE).toLocaleString('en')} values in ${(mock.seedMs / 1000).toFixed(1)} s`,
      ],
      benchmarks: [{ name: 'get', a: full, b: lean }],
    };
  },
};
