/**
 * `ksctl mock serve` in process: its options checked before it starts (a port out of range is a
 * usage error, not a bug; a --ready-file that is a directory is refused before the `mock` context
 * changes), and on success the context, the --json line, then the ready file. The spawned command
 * is in test/e2e (mock-commands, mock-shutdown, markings-cli).
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MockInfo } from '../../src/common/mock/wire.js';
import { ConfigStore } from '../../src/client/config/store.js';
import { startCli } from '../helpers/cli.js';
import { mockContextSuite } from '../helpers/mock-suite.js';

/** A running mock the `mock` context names. */
const suite = mockContextSuite();

describe('mock serve --port', () => {
  it.each(['70000', '65536', '99999', 'abc', '1.5'])(
    '%s is a usage error (exit 2)',
    async (port) => {
      const result = await suite.ksctl(['mock', 'serve', '--no-context', '--port', port]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`argument '${port}' is invalid`);
      expect(result.stderr).toContain('expected a port number from 0 to 65535');
      expect(result.stderr).not.toMatch(/bug|unexpected/i);
    },
  );
});

/** `mock serve` in-process until `stop()`; its output so far is readable meanwhile. */
const serveInProcess = (argv: string[]) =>
  startCli(['mock', 'serve', '--port', '0', '--no-log', ...argv], {
    env: { KSCTL_CONFIG_DIR: suite.configDir },
  });

describe('mock serve --ready-file', () => {
  it('a directory is refused before the server starts or the context changes', async () => {
    const directory = join(suite.configDir, 'run');
    await mkdir(directory);
    const before = await suite.mockContext();
    const result = await suite.ksctl(['mock', 'serve', '--port', '0', '--ready-file', directory]);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `error: cannot write the ready file ${directory}: it is a directory\n` +
        'hint: name a file, for example ready.json inside that directory\n',
    );
    expect(await suite.mockContext()).toEqual(before);
  });

  it('on success: the context, then the --json line, then the ready file (in a new directory)', async () => {
    const readyFile = join(suite.configDir, 'run', 'ready.json');
    const served = serveInProcess(['--json', '--ready-file', readyFile]);
    try {
      const deadline = Date.now() + 10_000;
      while (!existsSync(readyFile)) {
        if (Date.now() > deadline) throw new Error(`no ready file; stderr: ${served.stderr()}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // Everything else was there before the ready file.
      const printed = JSON.parse(served.stdout()) as MockInfo;
      expect(JSON.parse(await readFile(readyFile, 'utf8'))).toEqual(printed);
      // The "mock" context names the suite's mock, which answers: this one is "mock-2".
      expect(await suite.mockContext()).toMatchObject({ baseUrl: suite.mock.info.baseUrl });
      const store = await ConfigStore.open({ KSCTL_CONFIG_DIR: suite.configDir });
      expect(store.find('mock-2')).toMatchObject({ baseUrl: printed.baseUrl });
      expect(served.stderr()).toContain('ksctl --context mock-2 markings list');
      const health = await fetch(`${printed.url}/_mock/health`);
      expect(health.status).toBe(200);
      await health.body?.cancel();
    } finally {
      served.stop();
    }
    expect(await served.exit).toBe(0);
  });
});
