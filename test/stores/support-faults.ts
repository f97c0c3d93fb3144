// Fault-test tools. A loopback TCP proxy in front of a real service, so a test can take the
// service away (cut: refuse and drop every connection), make it stop answering (freeze:
// connections stay open but nothing flows) and bring it back (restore), without touching the
// service other suites use; and bounds that turn a hang into a failure.
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface Proxy {
  readonly port: number;
  /** Closes the port and drops every open connection. */
  cut(): Promise<void>;
  /** Listens again on the same port. */
  restore(): Promise<void>;
  /** Keeps connections open but forwards nothing, either way. */
  freeze(): void;
  close(): Promise<void>;
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : port);
    });
  });
}

export async function startProxy(targetPort: number): Promise<Proxy> {
  const sockets = new Set<Socket>();
  let frozen = false;

  const server = createServer((downstream) => {
    const upstream = connect(targetPort, '127.0.0.1');
    for (const socket of [downstream, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    downstream.on('data', (chunk) => frozen || upstream.write(chunk));
    upstream.on('data', (chunk) => frozen || downstream.write(chunk));
    downstream.on('close', () => upstream.destroy());
    upstream.on('close', () => downstream.destroy());
  });

  const port = await listen(server, 0);

  async function cut(): Promise<void> {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  }

  return {
    port,
    cut,
    async restore() {
      frozen = false;
      await listen(server, port);
    },
    freeze() {
      frozen = true;
    },
    async close() {
      if (server.listening) await cut();
      for (const socket of sockets) socket.destroy();
    },
  };
}

/**
 * Settles as `promise` does, or rejects once `ms` have passed: a bound that turns a hang into
 * a failure (it measures nothing; a call that settles in time passes however fast it was).
 */
export async function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Still pending after ${ms} ms: it hangs.`)), ms);
  });
  try {
    return await Promise.race([promise, hung]);
  } finally {
    clearTimeout(timer);
  }
}

/** Retries `attempt` until it resolves, for at most `ms` (a service coming back). */
export async function eventually<T>(ms: number, attempt: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
