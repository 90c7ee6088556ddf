import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { MarkingsApi } from '../../src/client/markings/markings-api.js';
import type { BulkMarkingItem, Marking, MarkingValue } from '../../src/common/markings/wire.js';
import { type ExecuteProgress, executePlan } from '../../src/client/apply/execute.js';
import type { Step } from '../../src/client/apply/strategy.js';
import {
  AuthError,
  ConflictError,
  InputError,
  NotFoundError,
  ServiceError,
} from '../../src/common/errors.js';

type Call = { method: string; args: unknown[] };

/**
 * A MarkingsApi that records calls, takes a little time per request and fails where a test says.
 * Only the methods apply uses are implemented.
 */
function fakeApi(failWith: (call: Call) => Error | undefined = () => undefined) {
  const calls: Call[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const request = async <T>(method: string, args: unknown[], result: T): Promise<T> => {
    const call = { method, args };
    calls.push(call);
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      await sleep(5);
      const error = failWith(call);
      if (error !== undefined) throw error;
      return result;
    } finally {
      inFlight -= 1;
    }
  };
  const unused = () => {
    throw new Error('not used by apply');
  };
  const value = {} as MarkingValue;
  const api: MarkingsApi = {
    listMarkingsPage: unused,
    listMarkings: unused,
    getMarking: unused,
    resolveMarking: unused,
    createMarking: unused,
    listValuesPage: unused,
    listValues: unused,
    getValue: unused,
    resolveValue: unused,
    updateMarking: (...args) => request('updateMarking', args, {} as Marking),
    createOrUpdateMarkings: (...args) => request('createOrUpdateMarkings', args, [] as Marking[]),
    deleteMarking: (...args) => request('deleteMarking', args, undefined),
    createValue: (...args) => request('createValue', args, value),
    updateValue: (...args) => request('updateValue', args, value),
    deleteValue: (...args) => request('deleteValue', args, undefined),
  };
  return { api, calls, maxInFlight: () => maxInFlight };
}

const deleteStep = (name: string): Step => ({
  kind: 'delete',
  targets: [{ name, action: 'delete' }],
  markingId: `id-${name}`,
  version: 1,
});

const bulkStep = (names: string[]): Step => ({
  kind: 'bulk',
  targets: names.map((name) => ({ name, action: 'create' })),
  items: names.map((name) => ({ name })),
});

const sentNames = (call: Call) => (call.args[0] as BulkMarkingItem[]).map((item) => item.name);

describe('executePlan', () => {
  it('keeps at most `concurrency` steps in flight and applies them all', async () => {
    const fake = fakeApi();
    const names = Array.from({ length: 10 }, (_, i) => `m${i}`);
    const progress: ExecuteProgress[] = [];
    const report = await executePlan(fake.api, names.map(deleteStep), {
      concurrency: 3,
      onProgress: (event) => progress.push(event),
    });
    expect(fake.maxInFlight()).toBe(3);
    expect(report.applied.map((target) => target.name)).toEqual(names);
    expect(report).toMatchObject({ failed: [], skipped: [], interrupted: false });
    expect(progress.at(-1)).toEqual({ done: 10, total: 10, failed: 0 });
    expect(fake.calls[0]?.args).toEqual(['id-m0', 1]);
  });

  it('records a failing marking and goes on with the others', async () => {
    const conflict = new ConflictError('create value x: duplicate name (40910)', {
      conversationId: 'cid-1',
      hint: 'rename it',
    });
    const fake = fakeApi((call) => (call.method === 'updateValue' ? conflict : undefined));
    const operations: Step = {
      kind: 'operations',
      targets: [{ name: 'big', action: 'update' }],
      markingId: 'id-big',
      operations: [
        { kind: 'createValue', value: { name: 'x' } },
        { kind: 'updateValue', valueId: 'v1', name: 'y', update: { description: 'Y' } },
        { kind: 'deleteValue', valueId: 'v2', name: 'z' },
      ],
    };
    const report = await executePlan(fake.api, [operations, deleteStep('old'), bulkStep(['new'])]);
    expect(report.applied).toEqual([
      { name: 'new', action: 'create' },
      { name: 'old', action: 'delete' },
    ]);
    expect(report.failed).toEqual([
      {
        name: 'big',
        action: 'update',
        message:
          'create value x: duplicate name (40910) (1 of 3 changes were made before it: added value "x")',
        code: 'E_CONFLICT',
        exitCode: 6,
        hint: 'rename it',
        conversationId: 'cid-1',
      },
    ]);
    expect(fake.calls.filter((call) => call.method === 'deleteValue')).toEqual([]);
  });

  it('sends bulk requests without values in the answer', async () => {
    const fake = fakeApi();
    await executePlan(fake.api, [bulkStep(['a'])]);
    expect(fake.calls[0]).toEqual({ method: 'createOrUpdateMarkings', args: [[{ name: 'a' }], 0] });
  });

  it('resends the rest of a bulk chunk when the service names the failing item', async () => {
    const fake = fakeApi((call) => {
      const names = sentNames(call);
      const index = names.indexOf('taken');
      if (index < 0) return undefined;
      return new ConflictError('create or update 3 markings: duplicate name (40910)', {
        details: [{ path: `[${index}].name`, message: 'a marking named "taken" exists' }],
      });
    });
    const report = await executePlan(fake.api, [bulkStep(['a', 'taken', 'c'])]);
    expect(fake.calls.map(sentNames)).toEqual([
      ['a', 'taken', 'c'],
      ['a', 'c'],
    ]);
    expect(report.applied.map((target) => target.name)).toEqual(['a', 'c']);
    expect(report.failed).toMatchObject([
      {
        name: 'taken',
        message:
          'a marking named "taken" exists (create or update 3 markings: duplicate name (40910))',
        code: 'E_CONFLICT',
      },
    ]);
  });

  it('splits a chunk in halves when the failure names no item', async () => {
    const fake = fakeApi((call) =>
      sentNames(call).includes('bad') ? new InputError('invalid request') : undefined,
    );
    const names = ['a', 'b', 'c', 'bad', 'e', 'f', 'g', 'h'];
    const report = await executePlan(fake.api, [bulkStep(names)]);
    expect(report.failed.map((failure) => failure.name)).toEqual(['bad']);
    expect(report.applied).toHaveLength(7);
    expect(fake.calls.length).toBeLessThanOrEqual(1 + 2 * Math.ceil(Math.log2(names.length)));
  });

  it('fails a whole chunk on an outage without resending it', async () => {
    const fake = fakeApi(() => new ServiceError('service unavailable'));
    const report = await executePlan(fake.api, [bulkStep(['a', 'b'])]);
    expect(fake.calls).toHaveLength(1);
    expect(report.failed.map((failure) => [failure.name, failure.code])).toEqual([
      ['a', 'E_SERVICE'],
      ['b', 'E_SERVICE'],
    ]);
  });

  it('counts a marking already deleted as deleted', async () => {
    const fake = fakeApi(() => new NotFoundError('no such marking'));
    const report = await executePlan(fake.api, [deleteStep('gone')]);
    expect(report.applied).toEqual([{ name: 'gone', action: 'delete' }]);
  });

  it('starts no further request once the credentials are refused', async () => {
    const fake = fakeApi(() => new AuthError('unauthorized'));
    const report = await executePlan(fake.api, ['a', 'b', 'c', 'd'].map(deleteStep), {
      concurrency: 1,
    });
    expect(fake.calls).toHaveLength(1);
    expect(report.failed.map((failure) => failure.name)).toEqual(['a']);
    expect(report.skipped.map((target) => target.name)).toEqual(['b', 'c', 'd']);
    expect(report.interrupted).toBe(false);
  });

  it('on abort stops a marking’s value operations between requests', async () => {
    const controller = new AbortController();
    const fake = fakeApi((call) => {
      if (call.method === 'createValue') controller.abort();
      return undefined;
    });
    const operations: Step = {
      kind: 'operations',
      targets: [{ name: 'big', action: 'update' }],
      markingId: 'id-big',
      operations: [
        { kind: 'createValue', value: { name: 'x' } },
        { kind: 'deleteValue', valueId: 'v2', name: 'z' },
      ],
    };
    const report = await executePlan(fake.api, [operations], { signal: controller.signal });
    expect(fake.calls.map((call) => call.method)).toEqual(['createValue']);
    expect(report.failed).toMatchObject([
      {
        name: 'big',
        code: 'E_INTERRUPTED',
        message: 'stopped after 1 of 2 changes to this marking (added value "x")',
      },
    ]);
    expect(report.interrupted).toBe(true);
  });

  it('on abort lets requests in flight finish and reports the rest as not attempted', async () => {
    const controller = new AbortController();
    const fake = fakeApi((call) => {
      if (call.args[0] === 'id-a') controller.abort(); // while b is in flight
      return undefined;
    });
    const report = await executePlan(fake.api, ['a', 'b', 'c', 'd', 'e'].map(deleteStep), {
      concurrency: 2,
      signal: controller.signal,
    });
    expect(report.interrupted).toBe(true);
    expect(report.applied.map((target) => target.name)).toEqual(['a', 'b']);
    expect(report.skipped.map((target) => target.name)).toEqual(['c', 'd', 'e']);
    expect(fake.calls).toHaveLength(2);
  });
});
