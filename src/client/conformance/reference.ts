/**
 * The reference of a conformance run: a fresh embedded mock on a loopback port of its own, seeded
 * with the starting state, and the clients that talk to it with its token and with a token it
 * cannot know. Nothing of it outlives the run: no context, no state directory, no console.
 */
import { ApiClient } from '../api/client.js';
import { randomUuid } from '../../common/encoding/random-pool.js';
import { type MockServer, type Seed, startMockServer } from '../usecases/mock.js';
import { Side, type SideEndpoints } from './side.js';

/** A token no service knows: the wrong-token scenario sends it to both sides. */
export const STRANGER_TOKEN = 'ksctl-conformance-unknown-token';

export interface Reference {
  server: MockServer;
  side: Side;
  /** The mock's client with its own token (cleanup and replay send through it). */
  client: ApiClient;
  close(): Promise<void>;
}

export interface ReferenceOptions {
  seed: Seed;
  /** The scopes the service's token has: the mock's token gets the same. */
  scopes?: readonly string[];
  /** The keyspace the enrollment scenarios ask for (the mock serves it too). */
  keyspace?: string;
  /** Whether a scenario asks for the key server's public key (its key is made at start then). */
  needsKeyServerKey: boolean;
  timeoutMs: number;
  signal?: AbortSignal;
}

export async function startReference(options: ReferenceOptions): Promise<Reference> {
  const token = `ksctl-conformance-${randomUuid()}`;
  const scoped = options.scopes === undefined ? undefined : `ksctl-conformance-${randomUuid()}`;
  const server = await startMockServer({
    host: '127.0.0.1',
    port: 0,
    devToken: token,
    seed: {
      ...options.seed,
      ...(scoped === undefined
        ? {}
        : {
            tokens: [
              ...(options.seed.tokens ?? []),
              { token: scoped, name: 'conformance', scopes: [...options.scopes!] as never },
            ],
          }),
    },
    console: false,
    cors: false,
    keyServerKeyOnFirstUse: !options.needsKeyServerKey,
  });
  const { info } = server;
  const client = new ApiClient({
    baseUrl: info.baseUrl,
    auth: { kind: 'bearer', token: scoped ?? token },
    timeoutMs: Math.max(options.timeoutMs, 60_000),
    retries: 0,
  });
  const stranger = new ApiClient({
    baseUrl: info.baseUrl,
    auth: { kind: 'bearer', token: STRANGER_TOKEN },
    retries: 0,
  });
  const endpoints: SideEndpoints = {
    keyspace: options.keyspace,
    enrollmentUrl: info.enrollmentUrl,
    knsUrl: info.knsUrl,
  };
  return {
    server,
    side: new Side('mock', client, stranger, endpoints, options.signal),
    client,
    async close() {
      await Promise.all([client.close(), stranger.close()]);
      await server.close();
    },
  };
}
