/**
 * An in-process mock service on a free port, for integration tests: started with a fixed dev
 * token, reset between tests through its admin endpoints, closed at the end. Every answer it
 * gives is checked against schema/openapi.yaml; close() fails naming those that disagree.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import type {
  FaultRule,
  JournalEntry,
  MockInfo,
  RequestJournal,
} from '../../src/common/mock/wire.js';
import { MockServer, type MockServerOptions } from '../../src/mock/server/server.js';
import { answerChecker } from './openapi.js';

export const DEV_TOKEN = 'ksdev.integration-test-token';

let keyServerKey: KeyObject | undefined;

/**
 * The markings tests never enroll, so a small RSA key spares the seconds an RSA-3072 key server
 * key takes to generate. Spread into the options so the tests compile whether or not the mock
 * takes a key server key.
 */
function fastKey(): Record<string, unknown> {
  keyServerKey ??= generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey;
  return { keyServerKey };
}

export interface RequestSeen {
  method: string;
  path: string;
  status: number;
}

export interface TestMock {
  server: MockServer;
  info: MockInfo;
  /** The markings `{base_url}` of the default tenant. */
  baseUrl: string;
  token: string;
  /** Called after every answer; tests set it to act between two requests of a command. */
  onRequest: ((request: RequestSeen) => void) | undefined;
  /** Back to the start-up state: no markings beyond the seed, no faults, an empty journal. */
  reset(): Promise<void>;
  setFaults(rules: FaultRule[]): Promise<void>;
  /** Requests to the service itself, oldest first (the admin endpoints are left out). */
  journal(): Promise<JournalEntry[]>;
  /** An authenticated call with the dev token; the body is JSON. */
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  /** Throws if an answer so far disagrees with schema/openapi.yaml; returns how many were checked. */
  verifyAnswers(): Promise<number>;
  /** Closes the mock, then verifies its answers. */
  close(): Promise<void>;
}

/**
 * MockServer.start with every answer checked against schema/openapi.yaml: its close() fails
 * naming the answers that disagree. For tests that need the server itself.
 */
export async function startCheckedServer(options: MockServerOptions = {}): Promise<MockServer> {
  const answers = answerChecker();
  const server = await MockServer.start({
    ...options,
    onAnswer: (answer) => {
      answers.observe(answer);
      options.onAnswer?.(answer);
    },
  });
  const close = server.close.bind(server);
  server.close = async () => {
    await close();
    await answers.verify();
  };
  return server;
}

export async function startMock(options: MockServerOptions = {}): Promise<TestMock> {
  let mock: TestMock | undefined;
  const answers = answerChecker();
  const server = await MockServer.start({
    port: 0,
    devToken: DEV_TOKEN,
    ...fastKey(),
    ...options,
    onRequest: (entry) => mock?.onRequest?.(entry),
    onAnswer: (answer) => {
      answers.observe(answer);
      options.onAnswer?.(answer);
    },
  });
  const { info } = server;
  const call: TestMock['call'] = async (method, path, body) => {
    const response = await fetch(info.url + path, {
      method,
      headers: {
        authorization: `Bearer ${info.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
  };
  const admin = async (method: string, path: string, body?: unknown) => {
    const answer = await call(method, path, body).catch((error: unknown) => {
      // A kept-alive socket the mock closed just as fetch reused it (its 5 s keep-alive ends
      // late on a loaded machine): the request never reached a handler, and every admin call
      // here (reset, faults, the journal) may be sent again.
      if (!staleSocket(error)) throw error;
      return call(method, path, body);
    });
    if (answer.status !== 200) {
      throw new Error(
        `${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`,
      );
    }
    return answer.body;
  };
  mock = {
    server,
    info,
    baseUrl: info.baseUrl,
    token: info.token,
    onRequest: undefined,
    async reset() {
      this.onRequest = undefined;
      await admin('POST', '/_mock/reset');
    },
    async setFaults(rules) {
      await admin('PUT', '/_mock/faults', rules);
    },
    async journal() {
      const { requests } = (await admin('GET', '/_mock/requests')) as RequestJournal;
      return requests.filter((r) => !r.path.startsWith('/_mock/'));
    },
    call,
    async verifyAnswers() {
      await answers.verify();
      return answers.checked;
    },
    async close() {
      await server.close();
      await answers.verify();
    },
  };
  return mock;
}

/** fetch's failure when the socket it reused was closed before any answer came. */
function staleSocket(error: unknown): boolean {
  const cause =
    error instanceof TypeError ? (error.cause as { code?: string } | undefined) : undefined;
  return ['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET'].includes(cause?.code ?? '');
}
