/**
 * Shared by the context test files: an in-process mock seeded with one marking, and before each
 * test a fresh config directory holding a file with the mock's token. `ksctl` runs the CLI with
 * that config directory and nothing else from the environment.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { cliFor } from '../helpers/cli.js';
import { startMock, type TestMock } from '../helpers/mock.js';
import { tempDirs } from '../helpers/temp.js';
import { started } from '../helpers/suite.js';

export function contextSuite(): {
  readonly mock: TestMock;
  readonly configDir: string;
  readonly tokenFile: string;
  ksctl: ReturnType<typeof cliFor>;
} {
  const dirs = tempDirs();
  let mock: TestMock | undefined;
  let configDir: string | undefined;
  beforeAll(async () => {
    mock = await startMock({ seed: { markings: [{ name: 'from-mock' }] } });
  });
  afterAll(async () => {
    await mock?.close();
    await dirs.removeAll();
  });
  beforeEach(async () => {
    configDir = await dirs.make();
    await writeFile(join(configDir, 'token.txt'), `${started(mock).token}\n`);
  });
  return {
    get mock() {
      return started(mock);
    },
    get configDir() {
      return started(configDir);
    },
    get tokenFile() {
      return join(started(configDir), 'token.txt');
    },
    ksctl: cliFor(() => ({ KSCTL_CONFIG_DIR: started(configDir) })),
  };
}
