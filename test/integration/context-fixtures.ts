/**
 * Shared by the context test files: an in-process mock seeded with one marking, and before each
 * test a fresh config directory holding a file with the mock's token. `ksctl` runs the CLI with
 * that config directory and nothing else from the environment.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach } from 'vitest';
import { cliFor } from '../helpers/cli.js';
import type { TestMock } from '../helpers/mock.js';
import { mockSuite } from '../helpers/mock-suite.js';

export function contextSuite(): {
  readonly mock: TestMock;
  readonly configDir: string;
  readonly tokenFile: string;
  ksctl: ReturnType<typeof cliFor>;
} {
  const suite = mockSuite({
    seed: { markings: [{ name: 'from-mock' }] },
    dirPerTest: true,
    resetEachTest: false,
  });
  beforeEach(async () => {
    await writeFile(join(suite.configDir, 'token.txt'), `${suite.mock.token}\n`);
  });
  return {
    get mock() {
      return suite.mock;
    },
    get configDir() {
      return suite.configDir;
    },
    get tokenFile() {
      return join(suite.configDir, 'token.txt');
    },
    ksctl: cliFor(() => ({ KSCTL_CONFIG_DIR: suite.configDir })),
  };
}
