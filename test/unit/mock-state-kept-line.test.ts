/**
 * State format 4: a record line that keeps one member apart from its data (a snapshot's packed
 * columns). Its line is checked whole, its data parsed, the member kept as the bytes read; a line
 * sealed by hand whose member is not where its length says is told with its line.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  readStateFile,
  recordLine,
  snapshotHeaderLine,
} from '../../src/mock/persistence/integrity.js';

const header = snapshotHeaderLine({ generation: 1, id: 'abc', covers: 0, records: 2 });

/** `body` (a JSON object) sealed with its checksum, as a ksctl would seal it. */
function sealed(body: string): string {
  const sum = createHash('sha256').update(body).digest('hex').slice(0, 16);
  return `${body.slice(0, -1)},"c":"${sum}"}\n`;
}

describe('a line that keeps a member apart', () => {
  it('reads back its data parsed and the member as the bytes written, whatever they hold', () => {
    const columns = { id: ['a', 'b'], name: ['Größe ✓', '日本 "quoted" \\ 🙂'] };
    const data = { tenant: 'dev', marking: { id: 'm', name: 'ß' }, n: 2 };
    const bytes = Buffer.from(
      header + recordLine(1, 'marking.packed', data, columns) + recordLine(2, 'devToken', 't'),
    );
    const file = readStateFile(bytes, 'snapshot.jsonl');
    expect(file.problems).toEqual([]);
    const [packed, token] = file.records;
    expect(packed).toMatchObject({ seq: 1, kind: 'marking.packed', data, line: 2 });
    expect(JSON.parse(packed!.kept!.toString('utf8'))).toEqual(columns);
    expect(token).toEqual({ seq: 2, kind: 'devToken', data: 't', file: 'snapshot.jsonl', line: 3 });
    // Written again from the bytes read: the same line.
    expect(recordLine(1, 'marking.packed', data, packed!.kept)).toBe(
      recordLine(1, 'marking.packed', data, columns),
    );
  });

  it('whose member is not where its length says is told with its line, though it verifies', () => {
    const line = recordLine(1, 'marking.packed', { n: 1 }, { id: ['a'] });
    const body = `${line.slice(0, line.lastIndexOf(',"c":'))}}`;
    const wrong = sealed(body.replace(/"vn":\d+/, '"vn":3'));
    const file = readStateFile(Buffer.from(header + wrong), 'snapshot.jsonl');
    expect(file.records).toEqual([]);
    expect(file.problems).toEqual([
      {
        file: 'snapshot.jsonl',
        line: 2,
        reason: 'not a state record (its kept member is not where it says)',
      },
    ]);
  });
});
