import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runOnce } from '../lib/measure.js';
import { bytes } from '../lib/report.js';

/**
 * (d) `markings apply` (the item 7): a fresh apply of 1,000 markings of 50 values against
 * one request per marking sent serially; re-applying the same file; one value added to a marking
 * of 10,000 values. Requests, writes and bytes come from the mock's request journal, measured once
 * in setup; times come from the interleaved runs.
 */

const HELPER = new URL('../apply-run.js', import.meta.url).pathname;
const MARKINGS = 1_000;
const VALUES = 50;
const BIG_VALUES = 10_000;
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const LATENCY_MS = 20;

const pad = (i, count) => String(i).padStart(String(count - 1).length, '0');

async function journal(mock) {
  const response = await fetch(`${mock.info.url}/_mock/requests`, {
    headers: { authorization: `Bearer ${mock.info.token}` },
  });
  const { requests } = await response.json();
  return requests.filter((r) => !r.path.startsWith('/_mock/'));
}

/**
 * Runs a command once and describes the requests it sent. The helper's runs reset the mock, which
 * empties the journal too: then everything in it is theirs.
 */
async function sent(mock, command) {
  const before = command.resets ? 0 : (await journal(mock)).length;
  await runOnce(command);
  const requests = (await journal(mock)).slice(before);
  const writes = requests.filter((r) => WRITES.has(r.method));
  const written = writes.reduce((sum, r) => sum + r.requestBytes, 0);
  return { requests, writes, written };
}

const describe = ({ requests, writes, written }) =>
  `${requests.length} requests, ${writes.length} writes (${bytes(written)} sent)`;

export default {
  name: 'apply',
  title: `apply ${MARKINGS.toLocaleString('en')} markings of ${VALUES} values; one value more for a marking of ${BIG_VALUES.toLocaleString('en')}`,
  runs: 5,
  warmups: 1,
  async setup(h) {
    const dir = await h.tempDir();
    const file = join(dir, 'markings.json');
    const values = Array.from({ length: VALUES }, (_, i) => `value-${pad(i, VALUES)}`);
    const markings = Array.from({ length: MARKINGS }, (_, i) => ({
      name: `marking-${pad(i, MARKINGS)}`,
      values,
    }));
    await writeFile(file, JSON.stringify({ markings }));

    const mock = await h.mock([]);
    // A service a few milliseconds away, as any real one is: the mock waits before answering.
    const distant = await h.mock([], { latency: { minMs: LATENCY_MS, maxMs: LATENCY_MS } });
    const helper = async (mode, on, where = '') => {
      const fresh = mode === 'ksctl';
      return {
        label: `${fresh ? 'ksctl markings apply (empty tenant)' : 'one request per marking, serially'}${where}`,
        argv: [process.execPath, HELPER, mode, file],
        env: (await h.ksctl([], { mock: on })).env,
        resets: true,
        verify: (out) => {
          const expected = fresh ? `Plan: ${MARKINGS} to create,` : `created ${MARKINGS}`;
          return out.toString().includes(expected) ? undefined : `no "${expected}"`;
        },
      };
    };
    const fresh = await helper('ksctl', mock);
    const serial = await helper('serial', mock);
    const freshDistant = await helper('ksctl', distant, ` (${LATENCY_MS} ms latency)`);
    const serialDistant = await helper('serial', distant, ` (${LATENCY_MS} ms latency)`);
    const reapply = await h.ksctl(['markings', 'apply', '-f', file], {
      label: 'ksctl markings apply (again)',
      mock,
      verify: (out) =>
        out.toString() === `No changes. ${MARKINGS} markings are up to date.\n`
          ? undefined
          : 'the second apply planned changes',
    });

    const freshSent = await sent(mock, fresh);
    const serialSent = await sent(mock, serial);
    await runOnce(fresh);
    const reapplySent = await sent(mock, reapply);
    if (reapplySent.writes.length > 0) throw new Error('re-applying sent writes');

    // One value more for a marking of 10,000 values.
    const bigMock = await h.mock([{ count: 1, values: BIG_VALUES, prefix: 'big' }]);
    const bigFile = join(dir, 'big.json');
    const bigValues = Array.from({ length: BIG_VALUES }, (_, i) => `value-${pad(i, BIG_VALUES)}`);
    await writeFile(
      bigFile,
      JSON.stringify({ markings: [{ name: 'big-0', values: [...bigValues, 'value-new'] }] }),
    );
    const addOne = await h.ksctl(['markings', 'apply', '-f', bigFile], { mock: bigMock });
    const addOneSent = await sent(bigMock, addOne);
    const [write] = addOneSent.writes;
    const addOneAgain = await sent(bigMock, addOne);

    return {
      benchmarks: [
        { name: 'fresh apply', a: serial, b: fresh, target: { atLeast: 3 } },
        {
          name: `fresh apply, ${LATENCY_MS} ms latency`,
          a: serialDistant,
          b: freshDistant,
          target: { atLeast: 20 },
        },
        { name: 're-apply', a: reapply, b: fresh },
      ],
      notes: [
        `fresh apply: ${describe(freshSent)}; one request per marking: ${describe(serialSent)}`,
        `re-apply: ${describe(reapplySent)} (${reapplySent.requests.map((r) => r.method).join(', ')})`,
        `one value added to a marking of ${BIG_VALUES.toLocaleString('en')} values: ${describe(addOneSent)}` +
          (write
            ? `: \`${write.method} ${write.path}\`, ${write.requestBytes} B (target: 1 request < 2 KB)`
            : '') +
          `; applying it again: ${describe(addOneAgain)}`,
        'the helper sides (bench/apply-run.js) reset the mock first, a few milliseconds alike for both; "re-apply" A/B below 1 means re-applying is faster than creating',
        `with no latency the mock answers a request in about a millisecond, so the fixed start-up of a ksctl process weighs most; the ${LATENCY_MS} ms row is closer to a real service`,
      ],
    };
  },
};
