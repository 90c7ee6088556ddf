/**
 * The mock server's connections: the cap on how many are served at once, the first-byte timeout,
 * and the drain that lets every client that got in have its answer when the mock stops.
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { sleep } from '../../common/sleep.js';

/** As MockServerOptions names them. */
export interface ConnectionLimits {
  /** Connections served at once (default 512); see admit(). */
  maxConnections?: number;
  /** A connection that sends no byte in this time is closed (default 5 s). */
  firstByteTimeoutMs?: number;
}

interface ConnectionUse {
  /** When it was taken in (performance.now()). */
  since: number;
  /** A request of it is being answered. */
  busy: boolean;
  answered: number;
}

/** drain() stops taking connections in once none has come for this long: the queue is empty. */
const QUEUE_QUIET_MS = 100;
/** A connection that has sent nothing this long after it came is not waited for by drain(). */
const SILENT_WAIT_MS = 500;

export class Connections {
  /** Open connections; those that had sent nothing when last looked at are `silent`, oldest first. */
  private count = 0;
  private readonly silent = new Set<Socket>();
  /** What each open connection has done: when it came, whether a request is in hand, answers. */
  private readonly uses = new Map<Socket, ConnectionUse>();
  /** When the last connection was taken in (performance.now()). */
  private lastAccepted = 0;

  constructor(private readonly limits: ConnectionLimits) {}

  /**
   * The connection cap, and the first-byte timeout. Node's own cap refuses a new client while the
   * connections it counts have sent nothing at all, so 512 idle sockets locked everybody out until
   * the header timeout (20 s): here a silent connection gives way to a new one, and is closed
   * after a few seconds anyway. A client that has started its request is never cut off for this.
   */
  admit(socket: Socket): void {
    this.count++;
    this.lastAccepted = performance.now();
    this.uses.set(socket, { since: this.lastAccepted, busy: false, answered: 0 });
    socket.once('close', () => {
      this.count--;
      this.silent.delete(socket);
      this.uses.delete(socket);
    });
    if (this.count > (this.limits.maxConnections ?? 512)) {
      const idle = this.oldestSilent();
      if (idle === undefined) {
        socket.destroy();
        return;
      }
      idle.destroy();
    }
    this.silent.add(socket);
    const timer = setTimeout(() => {
      if (socket.bytesRead === 0) socket.destroy();
      this.silent.delete(socket);
    }, this.limits.firstByteTimeoutMs ?? 5_000);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  }

  /** A request of the connection is being answered, until its response closes. */
  answering(socket: Socket, res: ServerResponse): void {
    const use = this.uses.get(socket);
    if (!use) return;
    use.busy = true;
    res.once('close', () => {
      use.busy = false;
      use.answered++;
    });
  }

  /**
   * Closing the listening socket resets the connections still in its queue, and Node's close
   * also drops connections whose request it has not read yet. So the socket keeps taking them
   * in until none has come for a moment, and every connection that has not sent its request yet
   * is waited for (a silent one a short while): each then gets its answer. Connections between
   * requests are closed meanwhile, as Node would.
   */
  async drain(deadline: number): Promise<void> {
    for (;;) {
      const now = performance.now();
      let waiting = false;
      for (const [socket, use] of this.uses) {
        if (use.busy) continue;
        const silent = socket.bytesRead === 0;
        if (use.answered > 0 || (silent && now - use.since > SILENT_WAIT_MS)) socket.destroy();
        else waiting = true;
      }
      const quiet = now - this.lastAccepted >= QUEUE_QUIET_MS;
      if ((quiet && !waiting) || now >= deadline) return;
      await sleep(10);
    }
  }

  private oldestSilent(): Socket | undefined {
    for (const socket of this.silent) {
      // Node's parser reads the socket natively; its byte count still says whether data came.
      if (socket.bytesRead === 0) return socket;
      this.silent.delete(socket);
    }
    return undefined;
  }
}
