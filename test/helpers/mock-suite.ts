/**
 * The one fixture of a suite against an in-process mock: the mock started on port 0 (answers
 * checked against schema/openapi.yaml), a temporary configuration directory, the CLI and a
 * markings client pointed at both, and everything closed and removed after the file. Call it at
 * the top of a test file (or of a describe) and read its fields inside the tests.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { ApiClient, type ClientOptions } from '../../src/client/api/client.js';
import { HttpMarkingsApi } from '../../src/client/markings/http-markings-api.js';
import { ConfigStore } from '../../src/client/config/store.js';
import type { MockServerOptions } from '../../src/mock/server/server.js';
import { cliFor, mockEnv } from './cli.js';
import { startMock, type TestMock } from './mock.js';
import { started } from './suite.js';
import { tempDirs } from './temp.js';

export interface MockSuiteOptions extends MockServerOptions {
  /** A fresh configuration directory for each test (default: one for the whole suite). */
  dirPerTest?: boolean;
  /** Reset the mock before each test (default true). */
  resetEachTest?: boolean;
  /** Options of the markings client beyond the mock's URL and token. */
  client?: Omit<ClientOptions, 'baseUrl' | 'auth'>;
}

export interface MockSuite {
  readonly mock: TestMock;
  /** The configuration directory (of this test, with dirPerTest). */
  readonly configDir: string;
  /** The markings API with the dev token, made when first read, closed after the suite. */
  readonly api: HttpMarkingsApi;
  /** Its HTTP client. */
  readonly client: ApiClient;
  /** More temporary directories, removed with the suite's. */
  makeDir(): Promise<string>;
  /** The CLI with the mock's base URL and dev token, configuration in `configDir`. */
  ksctl: ReturnType<typeof cliFor>;
}

/**
 * Registers the suite's hooks. `options` may be a function when they take time to make (a key
 * server key); it runs in the suite's beforeAll.
 */
export function mockSuite(
  options: MockSuiteOptions | (() => Promise<MockSuiteOptions>) = {},
): MockSuite {
  const dirs = tempDirs();
  let mock: TestMock | undefined;
  let configDir: string | undefined;
  let client: ApiClient | undefined;
  let api: HttpMarkingsApi | undefined;
  let settings: MockSuiteOptions = {};
  beforeAll(async () => {
    settings = typeof options === 'function' ? await options() : options;
    const { dirPerTest: _d, resetEachTest: _r, client: _c, ...serverOptions } = settings;
    mock = await startMock(serverOptions);
    if (!settings.dirPerTest) configDir = await dirs.make();
  });
  afterAll(async () => {
    await client?.close();
    await mock?.close();
    await dirs.removeAll();
  });
  beforeEach(async () => {
    if (settings.resetEachTest !== false) await mock?.reset();
    if (settings.dirPerTest) configDir = await dirs.make();
  });
  const suite: MockSuite = {
    get mock() {
      return started(mock);
    },
    get configDir() {
      return started(configDir);
    },
    get client() {
      const { baseUrl, token } = started(mock);
      client ??= new ApiClient({ baseUrl, auth: { kind: 'bearer', token }, ...settings.client });
      return client;
    },
    get api() {
      api ??= new HttpMarkingsApi(suite.client);
      return api;
    },
    makeDir: () => dirs.make(),
    ksctl: cliFor(() => mockEnv(started(mock), started(configDir))),
  };
  return suite;
}

/**
 * A mockSuite whose configuration directory (fresh for each test) holds what `mock serve` leaves
 * behind: a current `mock` context with every URL of the mock and its dev token. `ksctl` gets
 * that directory and nothing else: the context says where the mock is.
 */
export function mockContextSuite(options: MockServerOptions = {}): MockSuite & {
  /** The `mock` context as stored now. */
  mockContext(): Promise<unknown>;
} {
  const suite = mockSuite({ ...options, dirPerTest: true });
  beforeEach(async () => {
    const { info, token } = suite.mock;
    const store = await ConfigStore.open({ KSCTL_CONFIG_DIR: suite.configDir });
    await store.set('mock', {
      baseUrl: info.baseUrl,
      token,
      apiUrl: info.apiUrl,
      enrollmentUrl: info.enrollmentUrl,
      knsUrl: info.knsUrl,
      keyspace: info.keyspace,
    });
    await store.use('mock');
  });
  return Object.assign(suite, {
    ksctl: cliFor(() => ({ KSCTL_CONFIG_DIR: suite.configDir })),
    async mockContext() {
      return (await ConfigStore.open({ KSCTL_CONFIG_DIR: suite.configDir })).find('mock');
    },
  });
}
