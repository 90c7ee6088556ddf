/**
 * The console's pages' data, run in node: the modules that shape what the pages show touch no
 * page at import, so their pure parts are tested here without a browser (the browser tests
 * check the pages themselves).
 */
import { describe, expect, it } from 'vitest';
import { cellText, ruleFrom } from '../../../console/assets/faults-data.js';
import { listAsked, termsQuery, filterTerms } from '../../../console/assets/markings-data.js';
import {
  countCards,
  errorSeries,
  keyspaceText,
  perSecond,
  tenantText,
  WINDOW_S,
} from '../../../console/assets/overview-data.js';
import {
  filterOf,
  liveStateText,
  matches,
  RequestFeed,
  selectedOf,
} from '../../../console/assets/requests-data.js';
import { mintBody, outboxMessages } from '../../../console/assets/tokens-data.js';
import type { JournalEntry } from '../../../src/common/mock/wire.js';

describe('the Markings page’s data', () => {
  it('reads the filter grammar: terms, quoted values, bare words as name__contains', () => {
    expect(filterTerms('name__contains=cl public=true')).toEqual([
      ['name__contains', 'cl'],
      ['public', 'true'],
    ]);
    expect(filterTerms('description="two words"&colour')).toEqual([
      ['description', 'two words'],
      ['name__contains', 'colour'],
    ]);
    expect(filterTerms('')).toEqual([]);
    expect(filterTerms(undefined)).toEqual([]);
  });

  it('makes the query of terms and paging, leaving out empty parameters', () => {
    expect(termsQuery([['name__contains', 'a b']], { or: '', limit: 50, skip: 0 })).toBe(
      '?name__contains=a+b&limit=50&skip=0',
    );
  });

  it('reads what a route of the list asks for', () => {
    const route = { params: new URLSearchParams('q=cl&or=true&skip=50') };
    expect(listAsked(route)).toEqual({ text: 'cl', or: true, skip: 50 });
    expect(listAsked({ params: new URLSearchParams('skip=x') })).toEqual({
      text: '',
      or: false,
      skip: 0,
    });
  });
});

const entry = (over: Partial<JournalEntry>): JournalEntry => ({
  id: 1,
  time: '2026-01-01T00:00:00.000Z',
  method: 'GET',
  path: '/v2/dev/markings',
  status: 200,
  cid: 'c1',
  durationMs: 1,
  requestBytes: 0,
  responseBytes: 0,
  side: 'markings',
  ...over,
});

describe('the Requests page’s data', () => {
  it('judges a summary as the mock’s filter does', () => {
    expect(matches({}, entry({}))).toBe(true);
    expect(matches({}, entry({ side: 'admin' }))).toBe(false);
    expect(matches({ side: 'all' }, entry({ side: 'admin' }))).toBe(true);
    expect(matches({ method: 'post' }, entry({ method: 'POST' }))).toBe(true);
    expect(matches({ path: 'marking' }, entry({}))).toBe(true);
    expect(matches({ status: '4xx' }, entry({ status: 200, deviceCode: 4020 }))).toBe(true);
    expect(matches({ status: '404' }, entry({ status: 200 }))).toBe(false);
    expect(matches({ device: 'd1' }, entry({ device: 'd2' }))).toBe(false);
  });

  it('reads the filter and the opened request of a route', () => {
    expect(filterOf(new URLSearchParams('side=device&path=&status=4xx&other=1'))).toEqual({
      side: 'device',
      status: '4xx',
    });
    expect(selectedOf(['12'])).toBe(12);
    expect(selectedOf([])).toBeUndefined();
    expect(liveStateText('reconnecting')).toBe('Reconnecting…');
  });

  it('holds live requests: queued, or waiting in a bounded buffer while held, all counted', () => {
    const feed = new RequestFeed(3);
    feed.add(
      [1, 2].map((id) => entry({ id })),
      false,
    );
    expect(feed.take().map((e) => e.id)).toEqual([1, 2]);
    expect(feed.shownTotal).toBe(2);
    feed.add(
      [3, 4, 5, 6, 7].map((id) => entry({ id })),
      true,
    );
    expect(feed.waitingCount).toBe(5);
    expect(feed.waiting.map((e) => e.id)).toEqual([5, 6, 7]);
    expect(feed.release()).toBe(true);
    // The two dropped from the buffer count as older ones not shown.
    expect(feed.shownTotal).toBe(4);
    expect(feed.take().map((e) => e.id)).toEqual([5, 6, 7]);
    expect(feed.release()).toBe(false);
    feed.add(
      [8, 9, 10, 11].map((id) => entry({ id })),
      false,
    );
    expect(feed.queue.map((e) => e.id)).toEqual([9, 10, 11]);
    expect(feed.shownTotal).toBe(8);
  });
});

describe('the Overview’s data', () => {
  it('makes one point a second for five minutes, the quiet seconds zeros', () => {
    const points = perSecond(
      [
        {
          t: 1000,
          markings: 2,
          enrollment: 0,
          device: 1,
          admin: 0,
          p50: 3,
          p95: 9,
          errors: { 404: 1 },
        },
      ],
      1000,
    );
    expect(points).toHaveLength(WINDOW_S);
    expect(points.at(-1)).toMatchObject({ t: 1000, markings: 2, device: 1, p95: 9, err404: 1 });
    expect(points[0]).toEqual({
      t: 1000 - WINDOW_S + 1,
      markings: 0,
      enrollment: 0,
      device: 0,
      admin: 0,
      p50: 0,
      p95: 0,
    });
  });

  it('has a bar series a status, 5xx coloured apart, or one empty series', () => {
    const points: ({ t: number } & Record<string, number>)[] = [
      { t: 1, err503: 1 },
      { t: 2, err404: 2 },
    ];
    expect(errorSeries(points).map((s) => [s.label, s.colour])).toEqual([
      ['404', 'e4 v0'],
      ['503', 'e5 v1'],
    ]);
    expect(errorSeries([{ t: 1 }])).toEqual([
      { key: 'none', label: 'Errors', colour: 'e4 v0', kind: 'bar' },
    ]);
  });

  it('writes keyspaces, tenants and the count cards', () => {
    expect(keyspaceText({ id: 'WXyz', tenant: 'other', enrollment: false, online: false })).toBe(
      'WXyz (tenant other, enrollment off, offline)',
    );
    expect(tenantText({ id: 'other', markings: 1, values: 2 })).toBe('other (1 marking, 2 values)');
    const overview = {
      url: 'u',
      tenant: 'dev',
      tenants: [
        { id: 'dev', markings: 1, values: 1 },
        { id: 'b', markings: 0, values: 0 },
      ],
      counts: { markings: 1, values: 1, devices: 0, keys: 0, requests: 9 },
    };
    expect(countCards(overview)[0]).toEqual(['Markings in dev', 1]);
    expect(countCards({ url: 'u', counts: { requests: 3 } })).toEqual([
      ['Markings', undefined],
      ['Values', undefined],
      ['Devices', undefined],
      ['Keys', undefined],
      ['Requests', 3],
    ]);
  });
});

describe('the Faults and Tokens pages’ data', () => {
  it('makes a rule of the form: empty fields left out, numbers as numbers', () => {
    expect(
      ruleFrom({ method: '', path: ' /v2/* ', status: '503', probability: '.5', times: 'x' }),
    ).toEqual({ path: '/v2/*', status: 503, probability: 0.5, times: 'x' });
    expect(cellText(undefined)).toBe('—');
    expect(cellText(0)).toBe('0');
  });

  it('asks for a pair with the keyspace only when one was typed', () => {
    expect(mintBody(' alice ', ' ')).toEqual({ user: 'alice' });
    expect(mintBody('bob', 'WXyz')).toEqual({ user: 'bob', keyspace: 'WXyz' });
  });

  it('lists the outbox newest first, whichever shape the answer has', () => {
    const m = (code: string) => ({ to: 'a@b', keyspace: 'k', code, time: 't' });
    expect(outboxMessages({ messages: [m('1'), m('2')] }).map((x) => x.code)).toEqual(['2', '1']);
    expect(outboxMessages([m('1')])).toHaveLength(1);
    expect(outboxMessages(undefined)).toEqual([]);
  });
});
