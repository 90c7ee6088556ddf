/**
 * The mock's listening server, plain HTTP or HTTPS: the one place that decides, so that every
 * way of starting the mock (`mock serve`, the library, a recording proxy) gets TLS the same way.
 * With TLS the connection limits apply to a connection once its handshake is done (the
 * handshake itself has a timeout of its own), and a client that speaks plain HTTP to the HTTPS
 * port is told so in plain HTTP rather than left with a reset.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { TlsIdentity } from '../kit/local-ca.js';
import type { Connections } from './connections.js';
import { shellQuote } from '../request-detail/replay.js';
import type { TrustLines } from '../../common/mock/wire.js';

export type { TlsIdentity } from '../kit/local-ca.js';

/** What the server factory needs of the listening server, whichever protocol. */
export type MockListener = Server | HttpsServer;

export interface ListenerOptions {
  keepAliveTimeout: number;
  headersTimeout: number;
  requestTimeout: number;
  connectionsCheckingInterval: number;
  /** How long a TLS handshake may take. */
  handshakeTimeoutMs: number;
  /**
   * With TLS, connections the front holds at once, handshakes included (Connections counts them
   * once the handshake is done): each is closed within the handshake timeout anyway.
   */
  maxPendingConnections: number;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** The first byte of every TLS connection: a handshake record. */
const TLS_HANDSHAKE = 0x16;

/**
 * An HTTP server, or with `tls` an HTTPS one, whose connections `connections` admits. With TLS,
 * `listen` goes to a front that looks at each connection's first byte: a TLS handshake goes on to
 * the HTTPS server, anything else (a browser or curl at http://) gets a 400 saying to use https.
 */
export function createListener(
  tls: TlsIdentity | undefined,
  options: ListenerOptions,
  connections: Connections,
  handler: Handler,
): { server: MockListener; listening: Server | NetServer } {
  const { handshakeTimeoutMs, maxPendingConnections, ...http } = options;
  if (tls === undefined) {
    const server = createServer(http, handler);
    server.on('connection', (socket: Socket) => connections.admit(socket));
    return { server, listening: server };
  }
  const server = createHttpsServer(
    {
      ...http,
      cert: tls.cert,
      key: tls.key,
      minVersion: 'TLSv1.2',
      handshakeTimeout: handshakeTimeoutMs,
    },
    handler,
  );
  server.on('secureConnection', (socket: TLSSocket) => connections.admit(socket));
  const front = createNetServer((socket) => route(socket, server, handshakeTimeoutMs));
  front.maxConnections = maxPendingConnections;
  return { server, listening: front };
}

/**
 * Hands a connection to the HTTPS server with its first bytes put back (as httpolyglot does), or
 * answers a plain HTTP one itself.
 */
function route(socket: Socket, server: HttpsServer, timeoutMs: number): void {
  const timer = setTimeout(() => socket.destroy(), timeoutMs);
  timer.unref();
  socket.on('error', () => socket.destroy());
  socket.once('close', () => clearTimeout(timer));
  socket.once('data', (data: Buffer) => {
    clearTimeout(timer);
    socket.pause();
    if (data[0] !== TLS_HANDSHAKE) {
      answerPlainHttp(socket);
      return;
    }
    socket.unshift(data);
    server.emit('connection', socket);
    process.nextTick(() => socket.resume());
  });
  socket.resume();
}

const PLAIN_HTTP_ANSWER = JSON.stringify({
  error: {
    code: 400,
    message: 'this port speaks HTTPS: use https:// (the mock was started with --tls)',
  },
});

function answerPlainHttp(socket: Socket): void {
  socket.end(
    `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(PLAIN_HTTP_ANSWER)}\r\nconnection: close\r\n\r\n${PLAIN_HTTP_ANSWER}`,
  );
  socket.resume();
}

/** How each kind of client comes to trust the CA in `caFile`, as `mock serve` prints it. */
export function trustLines(caFile: string, url: string): TrustLines {
  const file = shellQuote(caFile);
  return {
    node: `export NODE_EXTRA_CA_CERTS=${file}`,
    curl: `curl --cacert ${file} ${url}/_mock/health`,
    java: `keytool -importcert -noprompt -alias ksctl-mock -file ${file} -keystore ksctl-mock.p12 -storetype PKCS12 -storepass changeit, then java -Djavax.net.ssl.trustStore=ksctl-mock.p12 -Djavax.net.ssl.trustStorePassword=changeit …`,
    android:
      'copy the file to the device, then Settings > Security > Encryption & credentials > Install a certificate > CA certificate; the app trusts user CAs only if its network security config says <certificates src="user"/> (a debug-overrides block will do)',
    ios: 'send the file to the device (AirDrop or mail), install the profile in Settings > General > VPN & Device Management, then turn on full trust in Settings > General > About > Certificate Trust Settings',
  };
}
