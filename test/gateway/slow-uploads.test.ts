// Slow uploads: a client that sends its body a byte now and then holds its request open. The
// gateway gives a body a deadline, bounds the bodies one address sends at once, and streams
// bodies on connections of their own, so such clients never hold the connections a signed GET
// needs (docs/gateway.md, "Slow uploads").
import assert from 'node:assert/strict';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { signRequest } from '../../src/client/index.ts';
import { buildApp } from '../../src/http/app.ts';
import type { GatewayOptions } from '../../src/http/gateway/gateway.ts';
import { createProvider } from '../../src/provider/index.ts';
import type { Provider } from '../../src/provider/index.ts';
import { createSqliteStore } from '../../src/store/index.ts';
import type { Client, Store, TokenCredential } from '../../src/store/index.ts';
import { startEchoUpstream } from './support.ts';
import type { EchoUpstream } from './support.ts';

interface Answer {
  readonly status: number;
  readonly text: string;
}

/** A client that sends a request's head and the first byte of its body, then waits. */
interface Upload {
  /** The gateway's answer (status 0: the connection closed unanswered). */
  readonly answer: Promise<Answer>;
  /** True once the connection has closed. */
  readonly closed: () => boolean;
  /** Resolves when the connection closes. */
  readonly ended: Promise<void>;
  /** Sends the rest of the body. */
  finish(): void;
  destroy(): void;
}

const LENGTH = 1000;

function startUpload(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  contentType = 'application/json',
): Upload {
  const socket = net.connect(port, '127.0.0.1');
  const lines = [
    `POST ${path} HTTP/1.1`,
    `Host: 127.0.0.1:${port}`,
    `Content-Type: ${contentType}`,
    `Content-Length: ${LENGTH}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.write(`${lines.join('\r\n')}\r\n\r\n${contentType === 'application/json' ? '[' : 'a'}`);
  let text = '';
  let closed = false;
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => (text += chunk));
  socket.on('error', () => {});
  const answer = new Promise<Answer>((resolve) => {
    const settle = (): void => {
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text);
      resolve({ status: status === null ? 0 : Number(status[1]), text });
    };
    // Settled by the whole answer (its Content-Length read) or by the connection's end.
    socket.on('data', () => {
      const head = text.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)\r\n/i.exec(text);
      if (head >= 0 && length !== null && text.length >= head + 4 + Number(length[1])) settle();
    });
    socket.on('close', () => {
      closed = true;
      settle();
    });
  });
  return {
    answer,
    closed: () => closed,
    ended: new Promise((resolve) => socket.once('close', () => resolve())),
    finish: () => {
      // The rest of the body, then the end of the connection once answered.
      socket.write(
        contentType === 'application/json' ? `${' '.repeat(LENGTH - 2)}]` : 'b'.repeat(LENGTH - 1),
      );
    },
    destroy: () => socket.destroy(),
  };
}

describe('Gateway: slow uploads', () => {
  let store: Store;
  let provider: Provider;
  let client: Client;
  let token: TokenCredential;
  const running: { app: FastifyInstance; upstream: EchoUpstream }[] = [];

  before(async () => {
    store = createSqliteStore({ path: ':memory:' });
    provider = createProvider({ store });
    client = await provider.clients.register({ name: 'Slow upload test app' });
    const owner = await provider.owners.create('alice', 'correct horse battery');
    token = await provider.tokens.issue({
      clientKey: client.key,
      ownerId: owner.id,
      scope: 'read',
    });
  });

  after(async () => {
    for (const { app, upstream } of running) {
      await app.close();
      await upstream.close();
    }
    await store.close();
  });

  async function startGateway(options: Partial<GatewayOptions>) {
    const upstream = await startEchoUpstream();
    const app = await buildApp({
      provider,
      maintenance: false,
      gateway: {
        upstream: upstream.url,
        rules: [{ path: '/public/*', access: 'public' }],
        ...options,
      },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    running.push({ app, upstream });
    return { app, upstream, port: (app.server.address() as AddressInfo).port };
  }

  function authorization(port: number, method: string, path: string): string {
    const signed = signRequest({
      method,
      url: `http://127.0.0.1:${port}${path}`,
      client,
      token: { token: token.token, secret: token.secret },
      // A JSON body, which the signature does not cover (§3.4.1.3.1).
      headers: method === 'GET' ? undefined : { 'content-type': 'application/json' },
    });
    return signed.headers['Authorization']!;
  }

  function signedGet(port: number, path: string) {
    return fetch(`http://127.0.0.1:${port}${path}`, {
      headers: { authorization: authorization(port, 'GET', path) },
    });
  }

  it(
    'answers a signed GET while 140 uploads trickle (70 unsigned on a public path, 70 signed on a token path)',
    // Failing, the GET waits behind the uploads for as long as they last.
    { timeout: 60_000 },
    async () => {
      // Neither the deadline nor the per-address bound in the way: the connections alone.
      const { upstream, port } = await startGateway({
        uploadTimeoutMs: 10 * 60_000,
        maxUploadsPerAddress: 1000,
      });
      const uploads: Upload[] = [];
      for (let i = 0; i < 70; i++) {
        uploads.push(startUpload(port, `/public/upload/${i}`));
        uploads.push(
          startUpload(port, `/orders/${i}`, {
            Authorization: authorization(port, 'POST', `/orders/${i}`),
          }),
        );
      }
      try {
        // As many as the upstream connections for bodies: every one of them held.
        await upstream.until(() => upstream.started >= 128);
        const response = await signedGet(port, '/orders');
        assert.equal(response.status, 200);
        assert.equal(JSON.parse(await response.text()).url, '/orders');
        // Answered while every upload was still under way.
        assert.deepEqual(
          uploads.filter((upload) => upload.closed()),
          [],
        );
      } finally {
        for (const upload of uploads) upload.destroy();
      }
    },
  );

  it(
    'answers 429 rate_limit_exceeded to an upload beyond the per-address bound, and takes one once another is done',
    { timeout: 30_000 },
    async () => {
      const { upstream, port } = await startGateway({
        uploadTimeoutMs: 10 * 60_000,
        maxUploadsPerAddress: 3,
      });
      const uploads = [0, 1, 2].map((i) => startUpload(port, `/public/upload/${i}`));
      try {
        await upstream.until(() => upstream.started >= 3);
        const extra = startUpload(port, '/public/upload/3');
        const refused = await extra.answer;
        assert.equal(refused.status, 429);
        await extra.ended; // its body unread, its connection is closed
        assert.match(refused.text, /oauth_problem=rate_limit_exceeded/);
        assert.match(refused.text, /\r\nretry-after: 1\r\n/i);
        assert.equal(upstream.started, 3);
        uploads[0]!.finish();
        assert.equal((await uploads[0]!.answer).status, 200);
        const next = await fetch(`http://127.0.0.1:${port}/public/upload/4`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '[]',
        });
        assert.equal(next.status, 200);
      } finally {
        for (const upload of uploads) upload.destroy();
      }
    },
  );

  describe('a body that does not arrive within uploadTimeoutMs', { timeout: 30_000 }, () => {
    let upstream: EchoUpstream;
    let port: number;

    before(async () => {
      ({ upstream, port } = await startGateway({ uploadTimeoutMs: 300 }));
    });

    it('is answered 408 parameter_rejected and its connection closed; the upstream request ends (streamed, public path)', async () => {
      const abandoned = upstream.abandoned;
      const upload = startUpload(port, '/public/upload');
      const answer = await upload.answer;
      assert.equal(answer.status, 408);
      assert.match(answer.text, /oauth_problem=parameter_rejected/);
      assert.match(answer.text, /\r\nconnection: close\r\n/i);
      await upload.ended;
      await upstream.until(() => upstream.abandoned > abandoned);
    });

    it('is answered 408 on a token path, signed', async () => {
      const abandoned = upstream.abandoned;
      const answer = await startUpload(port, '/orders/1', {
        Authorization: authorization(port, 'POST', '/orders/1'),
      }).answer;
      assert.equal(answer.status, 408);
      assert.match(answer.text, /oauth_problem=parameter_rejected/);
      await upstream.until(() => upstream.abandoned > abandoned);
    });

    it('is answered 408 while a form body is read for its signature, and nothing is forwarded', async () => {
      const started = upstream.started;
      const answer = await startUpload(
        port,
        '/public/form',
        {},
        'application/x-www-form-urlencoded',
      ).answer;
      assert.equal(answer.status, 408);
      assert.match(answer.text, /oauth_problem=parameter_rejected/);
      assert.equal(upstream.started, started);
    });

    it('leaves a body that arrives in time alone', async () => {
      const response = await fetch(`http://127.0.0.1:${port}/public/upload`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '[1]',
      });
      assert.equal(response.status, 200);
      assert.equal(Buffer.from(JSON.parse(await response.text()).body, 'base64').toString(), '[1]');
    });
  });
});
