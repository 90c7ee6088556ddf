/**
 * No wait on the service is silent: against a slow mock (400 ms a request), every command that
 * talks to it shows a spinner naming what it waits for on a terminal, and nothing on a piped
 * stderr.
 */
import { describe, expect, it } from 'vitest';
import { mockCliSuite } from '../helpers/cli.js';

const suite = mockCliSuite({ latency: { minMs: 400, maxMs: 400 } });

/** What a spinner frame drew last before being cleared: `⠋ label`. */
const spinnerLabels = (stderr: string) =>
  [...stderr.matchAll(/\r\x1b\[2K[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] ([^\r]*)/g)].map((m) => m[1]!);

describe('waits on the service show a spinner on a terminal', () => {
  const commands: [argv: string[], label: RegExp][] = [
    [['markings', 'create', 'region', '--value', 'eu'], /create marking region/],
    [['markings', 'update', 'classification', '--description', 'x'], /marking/],
    [['markings', 'delete', 'classification', '--yes'], /marking/],
    [['markings', 'export'], /list markings|list values|marking/],
    [['markings', 'values', 'add', 'classification', 'secret'], /value|marking/],
    [['status'], /list markings|introspect/],
  ];
  for (const [argv, label] of commands) {
    it(`ksctl ${argv.join(' ')}`, { timeout: 30_000 }, async () => {
      const created = await suite.mock.call('POST', '/v2/dev/markings', {
        name: 'classification',
        detail: { values: [{ name: 'public' }] },
      });
      expect(created.status).toBe(201);
      const shown = await suite.ksctl(argv, { tty: true, columns: 80 });
      expect(shown.stderr).not.toMatch(/error:/);
      const labels = spinnerLabels(shown.stderr);
      expect(labels.length, shown.stderr).toBeGreaterThan(0);
      expect(labels.join('\n')).toMatch(label);
      // The spinner leaves a clean line behind it, and fits the terminal.
      for (const l of labels) expect(l.length).toBeLessThan(80);
      expect(shown.stderr).toMatch(/\r\x1b\[2K(?![⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏])/);

      await suite.mock.reset();
      await suite.mock.call('POST', '/v2/dev/markings', {
        name: 'classification',
        detail: { values: [{ name: 'public' }] },
      });
      const piped = await suite.ksctl(argv);
      expect(piped.stderr).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]|\r/);
    });
  }
});
