// Draining on close (src/http/drain.ts): what a load balancer's keep-alive connections see
// while the server closes. Real sockets on a listening server, so the connection handling is
// Node's own: a request in flight is answered and its connection closed after it, a request
// that still reaches the server is served (never Fastify's generic 503), /readyz says 503 at
// once, the listener closes, and the store is still there for the last answer.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { describe, it } from 'node:test';
import { startWorld } from './world.ts';

interface Answer {
  readonly status: number;
  readonly headers: Map<string, string>;
  readonly body: string;
}

/** One keep-alive HTTP/1.1 connection, read by hand: each answer, and whether it ended. */
class Connection {
  readonly socket: Socket;
  readonly ended: Promise<void>;
  private buffer = '';
  private waiting: (() => void) | undefined;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      this.waiting?.();
    });
    socket.on('error', () => undefined);
    this.ended = once(socket, 'close').then(() => this.waiting?.());
  }

  static async open(port: number): Promise<Connection> {
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    return new Connection(socket);
  }

  send(path: string): void {
    this.socket.write(`GET ${path} HTTP/1.1\r\nHost: drain.test\r\n\r\n`);
  }

  /** The next whole answer (Content-Length bodies only, which is all these routes send). */
  async answer(): Promise<Answer> {
    for (;;) {
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end >= 0) {
        const [statusLine, ...lines] = this.buffer.slice(0, end).split('\r\n');
        const headers = new Map(
          lines.map((line) => {
            const colon = line.indexOf(':');
            return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
          }),
        );
        const length = Number(headers.get('content-length'));
        if (this.buffer.length >= end + 4 + length) {
          const body = this.buffer.slice(end + 4, end + 4 + length);
          this.buffer = this.buffer.slice(end + 4 + length);
          return { status: Number(statusLine!.split(' ')[1]), headers, body };
        }
      }
      if (this.socket.destroyed) throw new Error(`connection closed: ${this.buffer}`);
      await new Promise<void>((resolve) => (this.waiting = resolve));
    }
  }

  async get(path: string): Promise<Answer> {
    this.send(path);
    return this.answer();
  }
}

/** A promise with its resolve, for the test to hold and release the server's steps. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('closing drains the connections', () => {
  it('serves what reaches it with Connection: close, the store still open for the last one', async () => {
    const world = await startWorld();
    const entered = gate();
    const release = gate();
    const began = gate();
    const proceed = gate();
    // A request the test holds in flight; its answer needs the store.
    world.app.get('/held', async () => {
      entered.open();
      await release.promise;
      return { storeAnswers: await world.provider.ping() };
    });
    // Registered after the drain's: the test holds the close here, after the drain began and
    // before Fastify closes the listener, the window in which a balancer's request may still
    // arrive on an idle keep-alive connection.
    world.app.addHook('preClose', async () => {
      began.open();
      await proceed.promise;
    });
    await world.app.listen({ host: '127.0.0.1', port: 0 });
    const port = (world.app.server.address() as { port: number }).port;
    try {
      const idle = await Connection.open(port);
      const probe = await Connection.open(port);
      assert.equal((await idle.get('/healthz')).headers.get('connection'), 'keep-alive');
      assert.equal((await probe.get('/healthz')).headers.get('connection'), 'keep-alive');
      const inFlight = await Connection.open(port);
      inFlight.send('/held');
      await entered.promise;

      const closed = world.app.close();
      await began.promise;

      const late = await idle.get('/healthz');
      assert.deepEqual(
        [late.status, late.body, late.headers.get('connection')],
        [200, '{"status":"ok"}', 'close'],
      );
      await idle.ended;
      const ready = await probe.get('/readyz');
      assert.deepEqual(
        [ready.status, ready.body, ready.headers.get('connection')],
        [503, '{"status":"draining"}', 'close'],
      );
      assert.equal(ready.headers.get('retry-after'), '5');

      proceed.open();
      while (world.app.server.listening) await new Promise((resolve) => setImmediate(resolve));
      const refused = connect(port, '127.0.0.1');
      const [error] = (await once(refused, 'error')) as [NodeJS.ErrnoException];
      assert.equal(error.code, 'ECONNREFUSED');

      release.open();
      const held = await inFlight.answer();
      assert.deepEqual(
        [held.status, held.body, held.headers.get('connection')],
        [200, '{"storeAnswers":true}', 'close'],
      );
      await inFlight.ended;
      await closed;
    } finally {
      release.open();
      proceed.open();
      await world.close();
    }
  });

  it('cuts what is still open at the drain deadline, and closes', async () => {
    const world = await startWorld({ app: { drainTimeoutMs: 50 } });
    const entered = gate();
    world.app.get('/forever', async () => {
      entered.open();
      await new Promise(() => undefined);
    });
    await world.app.listen({ host: '127.0.0.1', port: 0 });
    const port = (world.app.server.address() as { port: number }).port;
    try {
      const stuck = await Connection.open(port);
      stuck.send('/forever');
      await entered.promise;
      await world.app.close();
      await stuck.ended;
      assert.equal(world.app.server.listening, false);
    } finally {
      await world.close();
    }
  });
});
