import { peakRss } from '../lib/measure.js';
import { bytes, targetText } from '../lib/report.js';
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

/** How often `needle` stands in `buffer`. */
function occurrences(buffer, needle) {
  let count = 0;
  for (let at = buffer.indexOf(needle); at !== -1; at = buffer.indexOf(needle, at + needle.length))
    count++;
  return count;
}

/**
 * The full listing is larger than the longest string V8 can make (with the public API's members
 * it passes 512 MiB), so it is checked without parsing: an array with one `detail` member per
 * marking and one `markingId` member per value.
 */
function checkFullListing(out) {
  const text = (at) => String.fromCharCode(out[at]);
  const first = out.subarray(0, 16).toString('utf8').trimStart()[0];
  let end = out.length - 1;
  while (end > 0 && /\s/.test(text(end))) end--;
  if (first !== '[' || text(end) !== ']') return 'not a JSON array';
  const markings = occurrences(out, '"detail":');
  const values = occurrences(out, '"markingId":');
  if (markings !== 10_000) return `${markings} markings, not 10,000`;
  if (values !== 1_000_000) return `${values} values, not 1,000,000`;
  return undefined;
}

const MANY = [{ count: 10_000, values: 100 }];
/** A fifth of MANY: memory must not grow with the number of markings. */
const FEWER = [{ count: 2_000, values: 100 }];
/** Peak RSS at MANY over peak RSS at FEWER: flat is 1×. */
const FLAT_TARGET = { atMost: 1.25 };

/**
 * Peak RSS of the same command against FEWER and MANY markings, and what the ratio says: one
 * note per command.
 */
async function flatness(h, label, args, fewer, many) {
  const small = await peakRss(await h.ksctl(args, { mock: fewer }));
  const large = await peakRss(await h.ksctl(args, { mock: many }));
  const ratio = large / small;
  return (
    `peak RSS of \`ksctl ${args.join(' ')}\` (${label}): ${bytes(small)} for 2,000 markings of ` +
    `100 values, ${bytes(large)} for 10,000: ${ratio.toFixed(2)}× (target ${targetText(FLAT_TARGET, ratio)})`
  );
}
const HUGE = [{ count: 1, values: 100_000, prefix: 'huge' }];

/** (b) Listing 10,000 markings of 100 values each, with and without their values. */
export const markingsList = {
  name: 'markings-list',
  title: 'list 10,000 markings of 100 values each, -o json',
  runs: 5,
  warmups: 1,
  async setup(h) {
    const mock = await h.mock(MANY);
    const full = await h.ksctl(['markings', 'list', '-o', 'json'], {
      mock,
      verify: checkFullListing,
    });
    const lean = await h.ksctl(['markings', 'list', '--value-limit', '0', '-o', 'json'], {
      mock,
      verify: (out) =>
        checkJson(out, (data) => {
          if (!Array.isArray(data) || data.length !== 10_000) return 'not 10,000 markings';
          return data[0].detail.values === undefined ? undefined : 'values present';
        }),
    });
    // Memory must not grow with the listing: pages are streamed out, one page fetched ahead.
    const empty = await h.ksctl(['markings', 'list', '-o', 'json'], { mock: await h.mock([]) });
    const [fullRss, leanRss, emptyRss] = [
      await peakRss(full),
      await peakRss(lean),
      await peakRss(empty),
    ];
    const fewer = await h.mock(FEWER);
    const flat = [
      await flatness(h, 'the full listing', ['markings', 'list', '-o', 'json'], fewer, mock),
      await flatness(h, 'export to stdout', ['markings', 'export'], fewer, mock),
    ];
    return {
      notes: [
        `mock built with ${seedValues(MANY).toLocaleString('en')} values in ${(mock.seedMs / 1000).toFixed(1)} s`,
        `peak RSS: full listing ${bytes(fullRss)}, --value-limit 0 ${bytes(leanRss)}, an empty tenant ${bytes(emptyRss)}`,
        ...flat,
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
