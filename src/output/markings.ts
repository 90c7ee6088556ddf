import type { Marking, MarkingValue } from '../api/wire.js';
import type { Column, View } from './render.js';

function time(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const MARKING_COLUMNS: Column<Marking>[] = [
  { header: 'NAME', value: (m) => m.name },
  { header: 'ID', value: (m) => m.id },
  { header: 'VALUES', value: (m) => m.detail.valueCount },
  { header: 'DEFAULT', value: (m) => m.defaultValue ?? '' },
  { header: 'PUBLIC', value: (m) => (m.public ? 'yes' : 'no') },
  { header: 'ADMIN ONLY', value: (m) => (m.adminOnly ? 'yes' : 'no') },
  { header: 'DESCRIPTION', value: (m) => m.detail.description },
];

const VALUE_COLUMNS: Column<MarkingValue>[] = [
  { header: 'NAME', value: (v) => v.name },
  { header: 'ID', value: (v) => v.id },
  { header: 'DESCRIPTION', value: (v) => v.description },
];

export function markingsListView(markings: Marking[]): View<Marking> {
  return { kind: 'table', data: markings, rows: markings, columns: MARKING_COLUMNS };
}

export function valuesListView(values: MarkingValue[]): View<MarkingValue> {
  return { kind: 'table', data: values, rows: values, columns: VALUE_COLUMNS };
}

/** One marking: its fields, then its values (those the service returned) on a terminal. */
export function markingView(m: Marking): View {
  const shown = m.detail.values;
  const fields: [string, string | number][] = [
    ['Name', m.name],
    ['ID', m.id],
    ['Description', m.detail.description],
    ['Public', m.public ? 'yes' : 'no'],
    ['Admin only', m.adminOnly ? 'yes' : 'no'],
    ['Default value', m.defaultValue ?? ''],
    ['Values', m.detail.valueCount],
    ['Version', m._version],
    ['Created', `${time(m._createdTs)} by ${m._createdBy}`],
    ['Updated', `${time(m._updatedTs)} by ${m._updatedBy}`],
  ];
  const more = shown === undefined ? 0 : m.detail.valueCount - shown.length;
  if (more > 0) fields.push(['Not shown', `${more} more values (raise --value-limit)`]);
  const list = shown && {
    title: 'Value',
    columns: ['NAME', 'ID', 'DESCRIPTION'],
    rows: shown.map((v) => [v.name, v.id, v.description]),
  };
  return { kind: 'record', data: m, fields, list };
}

export function valueView(v: MarkingValue): View {
  return {
    kind: 'record',
    data: v,
    fields: [
      ['Name', v.name],
      ['ID', v.id],
      ['Marking ID', v.markingId],
      ['Description', v.description],
      ['Version', v._version],
      ['Created', time(v._createdTs)],
      ['Updated', time(v._updatedTs)],
    ],
  };
}
