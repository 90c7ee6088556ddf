/**
 * The console's helpers that touch no page, run in node: numbers and times as the pages write
 * them, the query strings of the API, the hash routes, and the registry of pages that gives the
 * nav, the routes and the titles.
 */
import { describe, expect, it } from 'vitest';
import { query } from '../../../console/assets/api.js';
import { niceMax } from '../../../console/assets/charts.js';
import { bytes, clockText, count, plural, took } from '../../../console/assets/format.js';
import { HOME, PAGES, pageNamed, RECORDER_HOME } from '../../../console/assets/pages.js';
import { parseRoute, routeHash } from '../../../console/assets/route.js';

describe('numbers and times', () => {
  it('writes sizes, counts and durations', () => {
    expect(bytes(512)).toBe('512 B');
    expect(bytes(1536)).toBe('1.5 KiB');
    expect(bytes(3 * 1024 * 1024)).toBe('3.0 MiB');
    expect(bytes(undefined)).toBe('—');
    expect(count(20000)).toBe('20,000');
    expect(count(null)).toBe('—');
    expect(took(0.84)).toBe('0.8 ms');
    expect(took(12.6)).toBe('13 ms');
    expect(took(undefined)).toBe('0.0 ms');
    expect(plural(1, 'value')).toBe('1 value');
    expect(plural(2000, 'value')).toBe('2,000 values');
  });

  it('writes a request’s clock time to the millisecond, or what it was given', () => {
    expect(clockText('2026-01-01T10:20:30.045Z')).toMatch(/^\d\d:\d\d:\d\d\.045$/);
    expect(clockText('not a time')).toBe('not a time');
    expect(clockText(undefined)).toBe('');
  });

  it('rounds a chart’s scale up to 1, 2 or 5 × 10^n', () => {
    expect([0, 0.3, 3, 7, 12, 51].map(niceMax)).toEqual([1, 0.5, 5, 10, 20, 100]);
  });
});

describe('the API’s query strings', () => {
  it('leaves out empty values and repeats a name for each of an array', () => {
    expect(query({ side: 'device', path: '', device: undefined, limit: 0 })).toBe(
      '?side=device&limit=0',
    );
    expect(query({ status: ['404', '503'] })).toBe('?status=404&status=503');
    expect(query({})).toBe('');
    expect(query(undefined)).toBe('');
  });
});

describe('routes and the registry of pages', () => {
  it('reads a hash route; an unknown page is the home page', () => {
    const route = parseRoute('#/requests/12?side=device');
    expect(route.name).toBe('requests');
    expect(route.rest).toEqual(['12']);
    expect(route.params.get('side')).toBe('device');
    expect(parseRoute('#/markings/a%2Fb').rest).toEqual(['a/b']);
    expect(parseRoute('#/nowhere').name).toBe(HOME);
    expect(parseRoute('').name).toBe(HOME);
  });

  it('writes a hash route, leaving out empty parameters', () => {
    expect(routeHash('markings', ['a/b'], { q: 'x y', or: '', skip: 0 })).toBe(
      '#/markings/a%2Fb?q=x+y&skip=0',
    );
    expect(routeHash('requests')).toBe('#/requests');
  });

  it('lists each page once, with a title and a module to load', () => {
    const names = PAGES.map((p) => p.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(['overview', 'markings', 'devices', 'requests', 'faults', 'tokens']);
    for (const page of PAGES) {
      expect(page.title).toMatch(/^[A-Z]/);
      expect(typeof page.load).toBe('function');
    }
    expect(pageNamed(HOME)).toBeDefined();
    expect(pageNamed(RECORDER_HOME)?.recorder).toBe(true);
    expect(PAGES.filter((p) => p.recorder).map((p) => p.name)).toEqual(['requests']);
    expect(pageNamed('nowhere')).toBeUndefined();
  });
});
