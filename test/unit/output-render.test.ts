import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { type IOStreams, terminalColumns } from '../../src/client/output/io.js';
import {
  type Column,
  type View,
  fitWidths,
  relativeTime,
  renderView,
} from '../../src/client/output/render.js';
import { writeJsonArray } from '../../src/client/output/streaming.js';

function io(tty: boolean, width = 120) {
  const stdout = new PassThrough();
  let text = '';
  stdout.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const streams: IOStreams = {
    stdin: new PassThrough(),
    stdout,
    stderr: new PassThrough(),
    stdinIsTTY: tty,
    stdoutIsTTY: tty,
    stderrIsTTY: tty,
    color: false,
    columns: width,
  };
  return { streams, text: () => text };
}

interface Row {
  name: string;
  count: number;
  note: string | null;
}
const columns: Column<Row>[] = [
  { header: 'NAME', value: (r) => r.name },
  { header: 'COUNT', value: (r) => r.count },
  { header: 'NOTE', value: (r) => r.note },
];
const rows: Row[] = [
  { name: 'classification', count: 3, note: 'tab\there' },
  { name: 'region', count: 0, note: 'two\nlines\r\nand more' },
  { name: 'empty', count: 1, note: null },
];

async function* fromArray<T>(items: T[]): AsyncIterable<T> {
  for (const item of items) yield item;
}

describe('tables', () => {
  it('piped: one tab-separated line per row, no header, tabs and newlines in cells flattened', async () => {
    const out = io(false);
    await renderView(out.streams, 'table', { kind: 'table', data: rows, rows, columns });
    expect(out.text()).toBe(
      'classification\t3\ttab here\nregion\t0\ttwo lines and more\nempty\t1\t\n',
    );
  });

  it('piped and empty: no output at all', async () => {
    const out = io(false);
    await renderView(out.streams, 'table', { kind: 'table', data: [], rows: [], columns });
    expect(out.text()).toBe('');
  });

  it('on a terminal: a header row, then aligned rows', async () => {
    const out = io(true);
    await renderView(out.streams, 'table', { kind: 'table', data: rows, rows, columns });
    const lines = out.text().trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+COUNT\s+NOTE\s*$/);
    expect(lines[1]).toMatch(/^classification\s+3\s+/);
    expect(lines[0]!.indexOf('COUNT')).toBe(lines[1]!.indexOf('3'));
  });

  it('on a terminal: columns line up by display width (CJK and emoji two columns, accents none)', async () => {
    const out = io(true);
    const wide: Row[] = [
      { name: '機密', count: 1, note: 'a' },
      { name: '🇫🇷 fr', count: 2, note: 'b' },
      { name: 'cafe\u0301', count: 3, note: 'c' },
      { name: 'plain', count: 4, note: 'd' },
    ];
    await renderView(out.streams, 'table', { kind: 'table', data: wide, rows: wide, columns });
    expect(out.text().split('\n')).toEqual([
      'NAME   COUNT  NOTE',
      '機密   1      a',
      '🇫🇷 fr  2      b',
      'cafe\u0301   3      c',
      'plain  4      d',
      '',
    ]);
  });

  it('on a narrow terminal: a cell is cut by display width, never through a character', async () => {
    const out = io(true, 10);
    const one: Column<Row>[] = [{ header: 'NAME', value: (r) => r.name, flexible: true }];
    const long: Row[] = [{ name: '機密機密機密機密', count: 0, note: null }];
    await renderView(out.streams, 'table', { kind: 'table', data: long, rows: long, columns: one });
    expect(out.text()).toBe('NAME\n機密機密…\n');
  });

  it('records piped: label<TAB>value lines, then one line per listed item', async () => {
    const out = io(false);
    await renderView(out.streams, 'table', {
      kind: 'record',
      data: {},
      fields: [
        ['Name', 'classification'],
        ['Description', 'multi\nline'],
      ],
      list: { title: 'Value', columns: ['NAME', 'ID'], rows: [['internal', 'id-1']] },
    });
    expect(out.text()).toBe(
      'Name\tclassification\nDescription\tmulti line\nValue\tinternal\tid-1\n',
    );
  });

  it('json output is the data, whatever the view', async () => {
    const out = io(true);
    await renderView(out.streams, 'json', { kind: 'table', data: rows, rows, columns });
    expect(JSON.parse(out.text())).toEqual(rows);
  });

  it('yaml output is the data', async () => {
    const out = io(false);
    await renderView(out.streams, 'yaml', {
      kind: 'table',
      data: [{ name: 'a', n: 1 }],
      rows: [],
      columns: [],
    });
    expect(out.text()).toBe('- name: a\n  n: 1\n');
  });
});

describe('the identifier column', () => {
  interface Profile {
    name: string;
    deviceId: string;
    keyspace: string;
    server: string;
  }
  const profileColumns: Column<Profile>[] = [
    { header: 'NAME', value: (r) => r.name, id: true },
    { header: 'DEVICE ID', value: (r) => r.deviceId, id: true },
    { header: 'KEYSPACE', value: (r) => r.keyspace },
    { header: 'SERVER', value: (r) => r.server, flexible: true },
  ];
  const profiles: Profile[] = [
    {
      name: 'laptop',
      deviceId: 'ABcd.1.20deed5c-9d0a-4a57-b0bb-5d3e07a6c4e1',
      keyspace: 'ABcd',
      server: 'http://127.0.0.1:7878',
    },
  ];

  async function shown<T>(width: number, view: View<T>) {
    const out = io(true);
    let stderr = '';
    out.streams.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    await renderView({ ...out.streams, columns: width }, 'table', view);
    return { stdout: out.text(), stderr };
  }

  it('is never cut: other columns are cut, then left out, and the table says --wide shows all', async () => {
    const view = {
      kind: 'table' as const,
      data: profiles,
      rows: profiles,
      columns: profileColumns,
    };
    const at80 = await shown(80, view);
    expect(at80.stdout).toContain('ABcd.1.20deed5c-9d0a-4a57-b0bb-5d3e07a6c4e1');
    expect(at80.stdout).toMatch(/^NAME +DEVICE ID +KEYSPACE +SERVER$/m);
    const at60 = await shown(60, view);
    expect(at60.stdout).toContain('laptop  ABcd.1.20deed5c-9d0a-4a57-b0bb-5d3e07a6c4e1');
    expect(at60.stdout).not.toMatch(/SERVER/);
    expect(at60.stderr).toMatch(/--wide shows every column in full/);
    for (const line of at60.stdout.trimEnd().split('\n')) expect(line.length).toBeLessThan(60);
    const out = io(true);
    let quietErr = '';
    out.streams.stderr.on('data', (chunk: Buffer) => (quietErr += chunk.toString('utf8')));
    await renderView({ ...out.streams, columns: 60 }, 'table', view, { quiet: true });
    expect(quietErr).toBe('');
  });

  it('is the first column when none is marked: a long marking name stays whole', async () => {
    const long = { name: 'very-long-marking-name-for-the-retention-table', count: 3, note: 'x' };
    const view = { kind: 'table' as const, data: [long], rows: [long], columns };
    const at40 = await shown(40, view);
    expect(at40.stdout).toContain('very-long-marking-name-for-the-retention-table');
    expect(at40.stdout).not.toContain('…');
  });
});

describe('writeJsonArray', () => {
  const item = (i: number) => ({
    id: `id-${i}`,
    name: `marking "${i}"\n`,
    detail: { values: [], nested: [{ a: null }], valueCount: i },
    public: i % 2 === 0,
  });

  it.each([0, 1, 2, 1500])(
    '%d items: exactly JSON.stringify(items, null, 2) plus a newline',
    async (n) => {
      const items = Array.from({ length: n }, (_, i) => item(i));
      const out = io(false);
      const count = await writeJsonArray(out.streams, fromArray(items));
      expect(count).toBe(n);
      expect(out.text()).toBe(`${JSON.stringify(items, null, 2)}\n`);
    },
  );
});

describe('relativeTime and fitWidths', () => {
  const now = Date.parse('2026-11-23T10:00:00Z');
  it.each([
    [now - 5_000, 'just now'],
    [now - 90_000, '1 minute ago'],
    [now - 3 * 60_000, '3 minutes ago'],
    [now - 2 * 3600_000, '2 hours ago'],
    [now - 3 * 86_400_000, '3 days ago'],
    [now - 400 * 86_400_000, '1 year ago'],
    [now + 3600_000, '2026-11-23T11:00:00Z'],
  ])('%s is %s', (time, text) => {
    expect(relativeTime(time, now)).toBe(text);
  });

  it('shrinks the widest column first and never below a minimum', () => {
    expect(fitWidths([10, 40, 10], [4, 4, 4], 50)).toEqual([10, 26, 10]);
    expect(fitWidths([10, 10], [8, 8], 5)).toEqual([8, 8]);
    expect(fitWidths([5, 5], [1, 1], 80)).toEqual([5, 5]);
  });
});

describe('terminalColumns', () => {
  // A pseudo-terminal that reports 0 columns (`script`, some CI shells) squeezed every cell to
  // a few characters and an ellipsis.
  it('a terminal reporting 0 columns (or a pipe) is not zero wide: COLUMNS, else 80', () => {
    expect(terminalColumns(0, {})).toBe(80);
    expect(terminalColumns(0, { COLUMNS: '132' })).toBe(132);
    expect(terminalColumns(undefined, { COLUMNS: 'wide' })).toBe(80);
    expect(terminalColumns(80, { COLUMNS: '132' })).toBe(80);
  });
});
