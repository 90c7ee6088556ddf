/** Tables on a terminal: they fit its width, say when they are empty, and show times relative. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliFor, mockEnv } from '../helpers/cli.js';
import { mockSuite } from '../helpers/mock-suite.js';

const suite = mockSuite();
const cli = cliFor(() => ({
  ...mockEnv(suite.mock, suite.configDir),
  KSCTL_HOME: suite.configDir,
}));

const LONG = 'A description long enough to run well past the edge of an eighty column terminal';

describe('tables on a terminal', () => {
  it('fit 80 columns, cutting cells with an ellipsis; --wide shows them in full', async () => {
    const created = await cli([
      'markings',
      'create',
      'classification-of-documents-and-data',
      '--description',
      LONG,
      '--value',
      'public',
    ]);
    expect(created.code).toBe(0);
    const fitted = await cli(['markings', 'list'], { tty: true, columns: 80 });
    expect(fitted.code).toBe(0);
    const lines = fitted.stdout.trimEnd().split('\n');
    // IDs and ADMIN ONLY wait for --wide; the description is cut, the name kept whole.
    expect(lines[0]).toMatch(/^NAME +VALUES +DEFAULT +PUBLIC +DESCRIPTION$/);
    for (const line of lines) expect(line.length).toBeLessThan(80);
    expect(lines[1]).toMatch(/^classification-of-documents-and-data +1 +no +A description .*…$/);
    expect(lines).toHaveLength(2);

    const wide = await cli(['markings', 'list', '--wide'], { tty: true, columns: 80 });
    expect(wide.stdout).toMatch(/^NAME +ID +VALUES +DEFAULT +PUBLIC +ADMIN ONLY +DESCRIPTION$/m);
    expect(wide.stdout).toContain(LONG);
    expect(wide.stdout).not.toContain('…');

    const piped = await cli(['markings', 'list']);
    expect(piped.stdout.split('\t')).toHaveLength(7);
    expect(piped.stdout).toContain(LONG);
  });

  it('say on stderr when a list is empty, and print nothing when piped', async () => {
    const empty = await cli(['markings', 'list', '--starts-with', 'nothing-'], { tty: true });
    expect(empty.code).toBe(0);
    expect(empty.stdout).toBe('');
    expect(empty.stderr).toBe('no markings\n');
    const quiet = await cli(['markings', 'list', '--starts-with', 'nothing-', '-q'], {
      tty: true,
    });
    expect(quiet.stderr).toBe('');
    const piped = await cli(['markings', 'list', '--starts-with', 'nothing-']);
    expect(piped.stdout + piped.stderr).toBe('');
  });

  it('show times relative on a terminal and ISO 8601 when piped; values sorted', async () => {
    await cli(['markings', 'create', 'region', '--value', 'us', '--value', 'eu', '--value', 'ap']);
    const shown = await cli(['markings', 'get', 'region'], { tty: true });
    expect(shown.stdout).toMatch(/^Created: +just now by dev$/m);
    expect(shown.stdout.match(/^(ap|eu|us) /gm)).toEqual(['ap ', 'eu ', 'us ']);
    const piped = await cli(['markings', 'get', 'region']);
    expect(piped.stdout).toMatch(/^Created\t\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ by dev$/m);
    const values = await cli(['markings', 'values', 'list', 'region']);
    expect(values.stdout.split('\n').map((l) => l.split('\t')[0])).toEqual(['ap', 'eu', 'us', '']);
  });
});

describe('feedback on waits', () => {
  it('says that it retries, and why: on a terminal on the spinner, piped as a plain line', async () => {
    const rule = { method: 'GET', path: '/v2/dev/markings', status: 503, times: 1 };
    await suite.mock.setFaults([rule]);
    const shown = await cli(['markings', 'list'], { tty: true });
    expect(shown.code).toBe(0);
    expect(shown.stderr).toMatch(/list markings: 503, retrying in [\d.]+ s \(attempt 2 of 4\)/);
    await suite.mock.setFaults([rule]);
    const piped = await cli(['markings', 'list']);
    expect(piped.code).toBe(0);
    // Piped, a plain line (the wait that follows may have its own).
    expect(piped.stderr).toMatch(/^list markings: 503, retrying in [\d.]+ s \(attempt 2 of 4\)\n/);
    expect(piped.stderr).not.toMatch(/[\r\x1b]/);
    await suite.mock.setFaults([rule]);
    const quiet = await cli(['markings', 'list', '-q'], { tty: true });
    expect(quiet.stderr).not.toContain('retrying');
  });
});

describe('long tables on a terminal go through a pager', () => {
  it('$PAGER gets the table on a terminal; --no-pager, KSCTL_PAGER=cat and a pipe print directly', async () => {
    for (const name of ['region', 'classification']) {
      expect((await cli(['markings', 'create', name, '--value', 'a'])).code).toBe(0);
    }
    const file = join(suite.configDir, 'paged.txt');
    const env = { KSCTL_PAGER: undefined, PAGER: `cat > '${file}'` };
    const paged = await cli(['markings', 'list'], { tty: true, columns: 80, env });
    expect(paged.code).toBe(0);
    expect(paged.stdout).toBe('');
    expect(await readFile(file, 'utf8')).toMatch(/^NAME +VALUES.*\nclassification .*\nregion /s);

    const direct = await cli(['markings', 'list', '--no-pager'], { tty: true, columns: 80, env });
    expect(direct.stdout).toMatch(/^NAME +VALUES/);
    const cat = await cli(['markings', 'list'], {
      tty: true,
      columns: 80,
      env: { ...env, KSCTL_PAGER: 'cat' },
    });
    expect(cat.stdout).toMatch(/^NAME +VALUES/);
    const piped = await cli(['markings', 'list'], { env });
    expect(piped.stdout).toMatch(/^classification\t/);
  });
});
