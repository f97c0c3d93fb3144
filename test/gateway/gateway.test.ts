import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { signRequest } from '../../src/client/index.ts';
import type { SignOptions } from '../../src/client/index.ts';
import { buildApp } from '../../src/http/app.ts';
import { buildServer } from '../../src/server.ts';
import { createProvider } from '../../src/provider/index.ts';
import type { Provider } from '../../src/provider/index.ts';
import { createSqliteStore } from '../../src/store/index.ts';
import type { Client, Store, TokenCredential } from '../../src/store/index.ts';
import { startEchoUpstream } from './support.ts';
import type { EchoUpstream } from './support.ts';

describe('Gateway mode: verify, then forward to the upstream API', () => {
  let dir: string;
  let store: Store;
  let provider: Provider;
  let app: FastifyInstance;
  let upstream: EchoUpstream;
  let base: string;
  let client: Client;
  let token: TokenCredential;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'latchkey-gateway-'));
    store = await createSqliteStore({ path: join(dir, 'latchkey.db') });
    provider = createProvider({ store });
    upstream = await startEchoUpstream();
    app = await buildApp({
      provider,
      gateway: {
        upstream: upstream.url,
        responseTimeoutMs: 300,
        rules: [
          { path: '/public/*', access: 'public' },
          { path: '/status', access: 'client' },
          { path: '/admin/*', scope: 'write' },
          { path: '/photos/*', methods: ['GET'], scope: 'read' },
        ],
      },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    client = await provider.clients.register({ name: 'Gateway test app' });
    // An owner of the team's own login app: the upstream knows it by its subject.
    const owner = await provider.owners.signInExternal({
      source: 'delegated',
      subject: 'user-42',
      name: 'Zoë Ådams',
    });
    token = await provider.tokens.issue({
      clientKey: client.key,
      ownerId: owner.id,
      scope: 'read',
    });
  });

  after(async () => {
    await app.close();
    await upstream.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function send(options: Omit<SignOptions, 'client'> & { withToken?: boolean }) {
    const signed = signRequest({
      client,
      token: options.withToken === false ? undefined : { token: token.token, secret: token.secret },
      ...options,
      url: base + String(options.url),
    });
    return fetch(signed.url, {
      method: signed.method,
      headers: signed.headers,
      ...(signed.body === undefined ? {} : { body: signed.body }),
    });
  }

  function last() {
    const record = upstream.received.at(-1);
    assert.ok(record, 'the upstream received the request');
    return record;
  }

  it("adds the client's RateLimit-* fields to the upstream's answer, and to the 429", async () => {
    const registered = await provider.clients.register({ name: 'Paced gateway app' });
    const paced = await provider.clients.update(registered.key, { requestsPerMinute: 1 });
    const call = () => {
      const signed = signRequest({
        method: 'GET',
        url: `${base}/status`,
        client: { key: paced.key, secret: paced.secret },
      });
      return fetch(signed.url, { headers: signed.headers });
    };
    const passed = await call();
    assert.equal(passed.status, 200);
    assert.equal(passed.headers.get('ratelimit-limit'), '1');
    assert.equal(passed.headers.get('ratelimit-remaining'), '0');
    assert.ok(Number(passed.headers.get('ratelimit-reset')) >= 1);
    const refused = await call();
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get('ratelimit-remaining'), '0');
    assert.equal(refused.headers.get('ratelimit-reset'), refused.headers.get('retry-after'));
  });

  for (const transmission of ['header', 'body', 'query'] as const) {
    it(`forwards method, path, query and form body as sent, without protocol parameters (${transmission})`, async () => {
      const response = await send({
        method: 'POST',
        url: '/orders/42?tag=a&tag=b&q=x%20y%2Bz',
        body: new URLSearchParams([
          ['note', 'café & more'],
          ['empty', ''],
        ]),
        transmission,
      });
      assert.equal(response.status, 200);
      const received = last();
      assert.equal(received.method, 'POST');
      assert.equal(received.url, '/orders/42?tag=a&tag=b&q=x%20y%2Bz');
      assert.equal(received.body.toString(), 'note=caf%C3%A9%20%26%20more&empty=');
      assert.equal(received.headers['content-length'], String(received.body.length));
      assert.equal(received.headers.authorization, undefined);
    });
  }

  it('tells the upstream who is calling: X-OAuth-Client, X-OAuth-Owner (the subject), X-OAuth-Owner-Name (percent-encoded) and X-OAuth-Scope', async () => {
    await send({ method: 'GET', url: '/orders' });
    const headers = last().headers;
    assert.equal(headers['x-oauth-client'], client.key);
    assert.equal(headers['x-oauth-owner'], 'user-42');
    assert.equal(headers['x-oauth-owner-name'], 'Zo%C3%AB%20%C3%85dams');
    assert.equal(decodeURIComponent(String(headers['x-oauth-owner-name'])), 'Zoë Ådams');
    assert.equal(headers['x-oauth-scope'], 'read');
  });

  it('removes identity headers a caller sent, so they cannot be forged', async () => {
    await send({
      method: 'GET',
      url: '/orders',
      headers: {
        'X-OAuth-Owner': 'admin',
        'X-OAuth-Owner-Name': 'Admin',
        'X-OAuth-Scope': 'read write admin',
      },
    });
    assert.equal(last().headers['x-oauth-owner'], 'user-42');
    assert.equal(last().headers['x-oauth-owner-name'], 'Zo%C3%AB%20%C3%85dams');
    assert.equal(last().headers['x-oauth-scope'], 'read');
  });

  it('removes forged identity headers on public paths too', async () => {
    const response = await fetch(`${base}/public/info`, {
      headers: { 'x-oauth-owner': 'admin', 'x-oauth-owner-name': 'Admin' },
    });
    assert.equal(response.status, 200);
    assert.equal(last().headers['x-oauth-owner'], undefined);
    assert.equal(last().headers['x-oauth-owner-name'], undefined);
  });

  it('forwards a non-form body byte for byte', async () => {
    const bytes = Buffer.from(Array.from({ length: 70_000 }, (_, i) => i % 256));
    const signed = signRequest({
      method: 'PUT',
      url: `${base}/blobs/1`,
      client,
      token: { token: token.token, secret: token.secret },
      headers: { 'content-type': 'application/octet-stream' },
      body: bytes,
    });
    const response = await fetch(signed.url, {
      method: 'PUT',
      headers: signed.headers,
      body: bytes,
    });
    assert.equal(response.status, 200);
    assert.deepEqual(last().body, bytes);
  });

  it('never forwards an unsigned request', async () => {
    const before = upstream.received.length;
    const response = await fetch(`${base}/orders`);
    assert.equal(response.status, 401);
    assert.match(response.headers.get('www-authenticate') ?? '', /^OAuth realm="Latchkey"/);
    assert.equal(upstream.received.length, before);
  });

  it('never forwards a request with a bad signature', async () => {
    const before = upstream.received.length;
    const signed = signRequest({
      method: 'GET',
      url: `${base}/orders?a=1`,
      client,
      token: { token: token.token, secret: 'wrong' },
    });
    const response = await fetch(signed.url, { headers: signed.headers });
    assert.equal(response.status, 401);
    assert.match(await response.text(), /oauth_problem=signature_invalid/);
    assert.equal(upstream.received.length, before);
  });

  it('never forwards a replayed request', async () => {
    const signed = signRequest({
      method: 'GET',
      url: `${base}/orders`,
      client,
      token: { token: token.token, secret: token.secret },
    });
    assert.equal((await fetch(signed.url, { headers: signed.headers })).status, 200);
    const before = upstream.received.length;
    const replay = await fetch(signed.url, { headers: signed.headers });
    assert.equal(replay.status, 401);
    assert.match(await replay.text(), /oauth_problem=nonce_used/);
    assert.equal(upstream.received.length, before);
  });

  it('accepts a request signed by the client alone on a two-legged path', async () => {
    const response = await send({ method: 'GET', url: '/status', withToken: false });
    assert.equal(response.status, 200);
    assert.equal(last().headers['x-oauth-client'], client.key);
    assert.equal(last().headers['x-oauth-owner'], undefined);
  });

  it('refuses a request signed by the client alone where a token is needed', async () => {
    const response = await send({ method: 'GET', url: '/orders', withToken: false });
    assert.equal(response.status, 400);
    assert.match(
      await response.text(),
      /oauth_problem=parameter_absent&.*oauth_parameters_absent=oauth_token/,
    );
  });

  it('answers 403 permission_denied when the token lacks the scope a path requires', async () => {
    const before = upstream.received.length;
    const response = await send({ method: 'POST', url: '/admin/users' });
    assert.equal(response.status, 403);
    assert.match(await response.text(), /oauth_problem=permission_denied/);
    assert.equal(upstream.received.length, before);
  });

  it('applies a rule only to the methods it names', async () => {
    assert.equal((await send({ method: 'GET', url: '/photos/1' })).status, 200);
    assert.equal((await send({ method: 'DELETE', url: '/photos/1' })).status, 200); // default rule: token
  });

  it("keeps Latchkey's own paths for Latchkey", async () => {
    const before = upstream.received.length;
    const response = await send({ method: 'GET', url: '/api/me' });
    assert.equal(response.status, 200);
    const me = (await response.json()) as { client: { key: string } };
    assert.equal(me.client.key, client.key);
    assert.equal(upstream.received.length, before);
  });

  it('answers 504 with a clear body when the upstream is too slow', async () => {
    upstream.delayMs = 1000;
    try {
      const response = await send({ method: 'GET', url: '/slow' });
      assert.equal(response.status, 504);
      assert.match(await response.text(), /did not answer in time/);
    } finally {
      upstream.delayMs = 0;
    }
  });

  it('answers 502 with a clear body when the upstream is down', async () => {
    const down = await startEchoUpstream();
    await down.close();
    const gateway = await buildApp({
      provider,
      maintenance: false,
      gateway: { upstream: down.url },
    });
    try {
      const signed = signRequest({
        method: 'GET',
        url: 'http://localhost/x',
        client,
        token: { token: token.token, secret: token.secret },
      });
      const response = await gateway.inject({
        method: 'GET',
        url: '/x',
        headers: { ...signed.headers, host: 'localhost' },
      });
      assert.equal(response.statusCode, 502);
      assert.match(response.body, /could not be reached/);
    } finally {
      await gateway.close();
    }
  });

  it("leaves / to the upstream API when the pages are served too, and keeps Latchkey's pages", async () => {
    const server = await buildServer({
      provider,
      maintenance: false,
      gateway: { upstream: upstream.url },
    });
    try {
      const signed = signRequest({
        method: 'GET',
        url: 'http://localhost/',
        client,
        token: { token: token.token, secret: token.secret },
      });
      const root = await server.inject({
        method: 'GET',
        url: '/',
        headers: { ...signed.headers, host: 'localhost' },
      });
      assert.equal(root.statusCode, 200);
      assert.equal(last().url, '/');
      const signIn = await server.inject({ method: 'GET', url: '/signin' });
      assert.equal(signIn.statusCode, 200);
      assert.match(signIn.headers['content-type'] ?? '', /text\/html/);
    } finally {
      await server.close();
    }
  });
});
