/** How markings and values look in a table or on their own (src/client/output/render.ts draws them). */
import type { Marking, MarkingValue } from '../../common/markings/wire.js';
import { byName, type Cell, type Column, type TableView, type View } from '../output/render.js';

const MARKING_COLUMNS: Column<Marking>[] = [
  { header: 'NAME', value: (m) => m.name },
  { header: 'ID', value: (m) => m.id, wide: true },
  { header: 'VALUES', value: (m) => m.detail.valueCount },
  { header: 'DEFAULT', value: (m) => m.defaultValue ?? '' },
  { header: 'PUBLIC', value: (m) => (m.public ? 'yes' : 'no') },
  { header: 'ADMIN ONLY', value: (m) => (m.adminOnly ? 'yes' : 'no'), wide: true },
  { header: 'DESCRIPTION', value: (m) => m.detail.description, flexible: true },
];

const VALUE_COLUMNS: Column<MarkingValue>[] = [
  { header: 'NAME', value: (v) => v.name },
  { header: 'ID', value: (v) => v.id, wide: true },
  { header: 'DESCRIPTION', value: (v) => v.description, flexible: true },
];

/** Markings as the service ordered them (by name). */
export function markingsListView(markings: Marking[]): TableView<Marking> {
  return {
    kind: 'table',
    data: markings,
    rows: markings,
    columns: MARKING_COLUMNS,
    empty: 'no markings',
  };
}

/** Values sorted by name, whatever order the service keeps them in. */
export function valuesListView(values: MarkingValue[]): View<MarkingValue> {
  const sorted = [...values].sort(byName);
  return { kind: 'table', data: sorted, rows: sorted, columns: VALUE_COLUMNS, empty: 'no values' };
}

/** One marking: its fields, then its values (those the service returned) on a terminal. */
export function markingView(m: Marking): View {
  const shown = m.detail.values;
  const fields: [string, Cell][] = [
    ['Name', m.name],
    ['ID', m.id],
    ['Description', m.detail.description],
    ['Public', m.public ? 'yes' : 'no'],
    ['Admin only', m.adminOnly ? 'yes' : 'no'],
    ['Default value', m.defaultValue ?? ''],
    ['Values', m.detail.valueCount],
    ['Version', m._version],
    ['Created', { time: m._createdTs, by: m._createdBy }],
    ['Updated', { time: m._updatedTs, by: m._updatedBy }],
  ];
  const more = shown === undefined ? 0 : m.detail.valueCount - shown.length;
  if (more > 0) fields.push(['Not shown', `${more} more values (raise --value-limit)`]);
  const list = shown && {
    title: 'Value',
    columns: ['NAME', 'ID', 'DESCRIPTION'],
    rows: [...shown].sort(byName).map((v) => [v.name, v.id, v.description]),
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
      ['Created', { time: v._createdTs }],
      ['Updated', { time: v._updatedTs }],
    ],
  };
}
