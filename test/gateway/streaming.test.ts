// The gateway streams the upstream's answer: a client that stops reading holds the upstream
// back (backpressure) instead of the gateway buffering it, and a client that goes away ends
// the upstream request instead of leaving it running.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/http/app.ts';
import { createProvider } from '../../src/provider/index.ts';
import { createSqliteStore } from '../../src/store/index.ts';
import type { Store } from '../../src/store/index.ts';

describe('Gateway: answers streamed from the upstream', () => {
  let store: Store;
  let app: FastifyInstance;
  let upstream: http.Server;
  let base: string;
  /** Resolved with the upstream's response once it closes. */
  let upstreamClosed: Promise<void>;

  before(async () => {
    upstream = http.createServer((_request, response) => {
      upstreamClosed = once(response, 'close').then(() => undefined);
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      // An endless answer, written as fast as the gateway takes it.
      const chunk = Buffer.alloc(64 * 1024, 1);
      const more = (): void => {
        while (response.write(chunk));
      };
      response.on('drain', more);
      more();
    });
    upstream.listen(0, '127.0.0.1');
    await once(upstream, 'listening');
    store = createSqliteStore({ path: ':memory:' });
    app = await buildApp({
      provider: createProvider({ store }),
      maintenance: false,
      gateway: {
        upstream: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
        rules: [{ path: '/public/*', access: 'public' }],
        // Longer than the test's own timeout: the upstream request must end because the
        // client went away, not because the answer took too long.
        responseTimeoutMs: 10 * 60_000,
      },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });

  after(async () => {
    upstream.closeAllConnections();
    upstream.close();
    await app.close();
    await store.close();
  });

  it(
    'ends the upstream request when the client goes away in the middle of the answer',
    { timeout: 60_000 },
    async () => {
      const received = await new Promise<number>((resolve, reject) => {
        const request = http.get(`${base}/public/endless`, (response) => {
          let bytes = 0;
          response.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
            if (bytes >= 1024 * 1024) {
              request.destroy();
              resolve(bytes);
            }
          });
        });
        request.on('error', (error) => {
          if (!request.destroyed) reject(error);
        });
      });
      assert.ok(received >= 1024 * 1024);
      // Resolves only if the gateway gave the upstream request up (the test times out otherwise).
      await upstreamClosed;
    },
  );
});
