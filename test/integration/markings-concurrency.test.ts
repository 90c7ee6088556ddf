/**
 * Someone else changes a marking while a command works on it. The mock's onRequest hook runs
 * right after an answer is sent, before the command's next request can arrive, so the
 * "concurrent" change lands deterministically between the command's read and its write.
 */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NO_FILTER } from '../../src/common/markings/filters.js';
import type { HttpMarkingsApi } from '../../src/client/markings/http-markings-api.js';
import type { Marking } from '../../src/common/markings/wire.js';
import type { RequestSeen, TestMock } from '../helpers/mock.js';
import { mockSuite } from '../helpers/mock-suite.js';

const suite = mockSuite();
const { ksctl } = suite;
let mock: TestMock;
let api: HttpMarkingsApi;

beforeAll(() => {
  ({ mock, api } = suite);
});

let marking: Marking;
beforeEach(async () => {
  marking = await api.createMarking({
    name: 'classification',
    defaultValue: 'internal',
    detail: { values: [{ name: 'public' }, { name: 'internal', description: 'Staff only' }] },
  });
});

/** Runs `change` once, synchronously, right after the first answer that matches. */
function once(matches: (r: RequestSeen) => boolean, change: () => void): void {
  let done = false;
  mock.onRequest = (r) => {
    if (done || !matches(r)) return;
    done = true;
    change();
  };
}

const store = () => mock.server.state.tenant('dev')!.markings;
const actor = { name: 'someone-else' };
/** The command's read of the marking: by name (a list) first, by id when it reads again. */
const readOfMarking = (r: RequestSeen) => {
  const path = r.path.split('?')[0];
  return (
    r.method === 'GET' && (path === '/v2/dev/markings' || path === `/v2/dev/markings/${marking.id}`)
  );
};

describe('markings update --set-values', () => {
  it('a change between its read and its write: 412, read again, the other change is kept', async () => {
    once(readOfMarking, () => {
      store().update(marking.id, { public: true }, actor, undefined);
      const internal = store()
        .listValues(marking.id, NO_FILTER, 0, 100)
        .items.find((v) => v.name === 'internal')!;
      store().updateValue(marking.id, internal.id, { description: 'changed meanwhile' }, actor);
    });
    const result = await ksctl([
      'markings',
      'update',
      'classification',
      '--set-values',
      'internal',
      '--set-values',
      'restricted',
      '--yes',
      '-o',
      'json',
    ]);
    expect(result.code).toBe(0);
    const after = JSON.parse(result.stdout) as Marking;
    expect(after.public).toBe(true);
    expect(after.detail.values!.map((v) => [v.name, v.description])).toEqual([
      ['internal', 'changed meanwhile'],
      ['restricted', ''],
    ]);
    const puts = (await mock.journal()).filter((r) => r.method === 'PUT');
    expect(puts.map((r) => r.status)).toEqual([412, 200]);
  });

  it('a value added between its read and its write is never removed unasked: nothing changes, exit 6', async () => {
    once(readOfMarking, () => store().createValue(marking.id, { name: 'sneaked-in' }, actor));
    const result = await ksctl([
      'markings',
      'update',
      'classification',
      '--set-values',
      'internal',
      '--yes',
    ]);
    expect(result.code).toBe(6);
    expect(result.stderr).toContain(
      'changed meanwhile: the new set would also remove "sneaked-in"; nothing was changed',
    );
    const after = await api.getMarking(marking.id);
    expect(after.detail.values!.map((v) => v.name)).toEqual(['internal', 'public', 'sneaked-in']);
    const puts = (await mock.journal()).filter((r) => r.method === 'PUT');
    expect(puts.map((r) => r.status)).toEqual([412]);
  });

  it('a marking that keeps changing: gives up after 5 attempts with exit 6', async () => {
    let n = 0;
    mock.onRequest = (r) => {
      if (readOfMarking(r))
        store().update(marking.id, { detail: { description: `d${n++}` } }, actor, undefined);
    };
    const result = await ksctl([
      'markings',
      'update',
      'classification',
      '--set-values',
      'internal',
      '--yes',
    ]);
    expect(result.code).toBe(6);
    expect(result.stderr).toMatch(/is at version \d+, not \d+/);
    const puts = (await mock.journal()).filter((r) => r.method === 'PUT');
    expect(puts).toHaveLength(5);
    expect(puts.every((r) => r.status === 412)).toBe(true);
  });
});

describe('markings update --add-value / --remove-value', () => {
  it('values others add meanwhile are kept', async () => {
    once(
      (r) => r.method === 'GET' && r.path.split('?')[0] === '/v2/dev/markings',
      () => store().createValue(marking.id, { name: 'theirs' }, actor),
    );
    const result = await ksctl([
      'markings',
      'update',
      'classification',
      '--add-value',
      'mine',
      '--remove-value',
      'public',
      '--yes',
      '-o',
      'json',
    ]);
    expect(result.code).toBe(0);
    const after = JSON.parse(result.stdout) as Marking;
    expect(after.detail.values!.map((v) => v.name)).toEqual(['internal', 'mine', 'theirs']);
  });
});

describe('parallel writers', () => {
  it('50 values added in parallel through the CLI are all kept', async () => {
    const names = Array.from({ length: 50 }, (_, i) => `p${String(i).padStart(2, '0')}`);
    const results = await Promise.all(
      names.map((name) => ksctl(['markings', 'values', 'add', 'classification', name])),
    );
    expect(results.map((r) => r.code)).toEqual(names.map(() => 0));
    const after = await api.getMarking(marking.id);
    expect(after.detail.valueCount).toBe(52);
    expect(after._version).toBe(51);
  });

  it('of two updates read at the same version, one wins and the other is told (412)', async () => {
    const results = await Promise.allSettled([
      api.updateMarking(marking.id, { public: true }, marking._version),
      api.updateMarking(marking.id, { adminOnly: true }, marking._version),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const after = await api.getMarking(marking.id);
    expect(after._version).toBe(2);
    expect(after.public !== after.adminOnly).toBe(true);
  });
});
