import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { signRequest } from '../../src/client/index.ts';
import { buildServer } from '../../src/server.ts';
import { createProvider } from '../../src/provider/index.ts';
import type { Provider } from '../../src/provider/index.ts';
import { createSqliteStore } from '../../src/store/index.ts';
import type { Client, Store, TokenCredential } from '../../src/store/index.ts';
import { startEchoUpstream } from './support.ts';
import type { EchoUpstream } from './support.ts';

describe('Gateway: what the upstream is told, and what it is not', () => {
  let store: Store;
  let provider: Provider;
  let app: FastifyInstance;
  let upstream: EchoUpstream;
  let base: string;
  let client: Client;
  let token: TokenCredential;

  before(async () => {
    store = createSqliteStore({ path: ':memory:' });
    provider = createProvider({ store });
    upstream = await startEchoUpstream();
    app = await buildServer({
      provider,
      maintenance: false,
      gateway: { upstream: upstream.url, rules: [{ path: '/public/*', access: 'public' }] },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    client = await provider.clients.register({ name: 'Header test app' });
    const owner = await provider.owners.create('alice', 'correct horse battery');
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
  });

  function signedGet(path: string, headers: Record<string, string>) {
    const signed = signRequest({
      method: 'GET',
      url: base + path,
      headers,
      client,
      token: { token: token.token, secret: token.secret },
    });
    return fetch(signed.url, { headers: signed.headers });
  }

  /** Header names that WSGI, CGI and PHP read as the identity headers (HTTP_X_OAUTH_OWNER). */
  const forged = {
    X_OAuth_Owner: 'admin',
    'x_oauth_owner-name': 'Admin',
    'X-OAuth_Scope': 'read write admin',
    x_oauth_client: 'someone-else',
  };

  function assertNoUnderscoreCopies(headers: Record<string, unknown>) {
    const names = Object.keys(headers).filter((name) => name.includes('_'));
    assert.deepEqual(names, []);
  }

  it('drops identity headers spelled with underscores on a verified path', async () => {
    const response = await signedGet('/orders', forged);
    assert.equal(response.status, 200);
    const { headers } = upstream.received.at(-1)!;
    assertNoUnderscoreCopies(headers);
    assert.equal(headers['x-oauth-scope'], 'read');
    assert.equal(headers['x-oauth-client'], client.key);
  });

  it('drops identity headers spelled with underscores on a public path', async () => {
    const response = await fetch(`${base}/public/info`, { headers: forged });
    assert.equal(response.status, 200);
    const { headers } = upstream.received.at(-1)!;
    assertNoUnderscoreCopies(headers);
    assert.equal(headers['x-oauth-owner'], undefined);
  });

  const ours = [
    '__Host-latchkey_session=s%3Aabc.def',
    '__Host-latchkey_csrf=xyz',
    '__Host-latchkey_login=l1',
    'latchkey_session=s2',
    'latchkey_csrf=c2',
    'latchkey_login=l2',
  ];

  it("never forwards Latchkey's own session, CSRF and sign-in cookies, and keeps the app's", async () => {
    const cookie = ['app_session=keep-me', ...ours.slice(0, 3), 'theme=dark', ...ours.slice(3)];
    const response = await signedGet('/orders', { cookie: cookie.join('; ') });
    assert.equal(response.status, 200);
    assert.equal(upstream.received.at(-1)!.headers.cookie, 'app_session=keep-me; theme=dark');
  });

  it("never forwards Latchkey's cookies on a public path, and drops an emptied Cookie header", async () => {
    await fetch(`${base}/public/info`, { headers: { cookie: ours.join('; ') } });
    assert.equal(upstream.received.at(-1)!.headers.cookie, undefined);
    await fetch(`${base}/public/info`, { headers: { cookie: 'a=1;b=latchkey_session' } });
    assert.equal(upstream.received.at(-1)!.headers.cookie, 'a=1; b=latchkey_session');
  });

  it('strips oauth_* parameters from the query and the form body on a public path too', async () => {
    const response = await fetch(`${base}/public/form?oauth_token=t&q=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1&oauth_token=abc&oauth_verifier=v&%6Fauth_signature=s&b=2',
    });
    assert.equal(response.status, 200);
    const received = upstream.received.at(-1)!;
    assert.equal(received.url, '/public/form?q=1');
    assert.equal(received.body.toString(), 'a=1&b=2');
    assert.equal(received.headers['content-length'], '7');
  });

  /** A request with headers fetch() refuses to send (Connection, Keep-Alive, TE). */
  function rawGet(
    path: string,
    headers: OutgoingHttpHeaders,
    method = 'GET',
  ): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
    return new Promise((resolve, reject) => {
      const sent = httpRequest(`${base}${path}`, { method, headers }, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
        );
      });
      sent.on('error', reject);
      sent.end();
    });
  }

  it('drops connection-specific headers and those the Connection header names (RFC 9110 §7.6.1)', async () => {
    const response = await rawGet('/public/info', {
      connection: 'keep-alive, x-hop',
      'x-hop': 'for this connection only',
      'keep-alive': 'timeout=5',
      te: 'trailers',
      'x-end-to-end': 'kept',
    });
    assert.equal(response.status, 200);
    const { headers } = upstream.received.at(-1)!;
    assert.equal(headers['x-end-to-end'], 'kept');
    assert.equal(headers['x-hop'], undefined);
    assert.equal(headers['keep-alive'], undefined);
    assert.equal(headers['te'], undefined);
  });

  it('sets the identity headers after the Connection header is read, so it cannot name them away', async () => {
    const signed = signRequest({
      method: 'GET',
      url: `${base}/orders`,
      client,
      token: { token: token.token, secret: token.secret },
    });
    const response = await rawGet('/orders', {
      ...signed.headers,
      connection: 'keep-alive, x-oauth-scope, x-oauth-client',
    });
    assert.equal(response.status, 200);
    const { headers } = upstream.received.at(-1)!;
    assert.equal(headers['x-oauth-scope'], 'read');
    assert.equal(headers['x-oauth-client'], client.key);
  });

  it("answers HEAD with the upstream's headers and no body", async () => {
    const response = await rawGet('/public/info', {}, 'HEAD');
    assert.equal(response.status, 200);
    assert.equal(response.headers['content-type'], 'application/json');
    assert.equal(response.body, '');
    assert.equal(upstream.received.at(-1)!.method, 'HEAD');
  });

  it('keeps other headers with underscores', async () => {
    await fetch(`${base}/public/info`, { headers: { x_request_tag: 'kept' } });
    assert.equal(upstream.received.at(-1)!.headers['x_request_tag'], 'kept');
  });

  /** What a client sends to pass for another address, scheme or host. */
  const spoofed = {
    'x-forwarded-for': '203.0.113.66',
    'x-forwarded-host': 'evil.example',
    'x-forwarded-proto': 'https',
    'x-forwarded-port': '443',
    forwarded: 'for=203.0.113.66;host=evil.example;proto=https',
    'x-real-ip': '203.0.113.66',
    x_forwarded_for: '203.0.113.67',
    X_Real_IP: '203.0.113.68',
  };

  function assertOwnForwardingHeaders(headers: IncomingHttpHeaders) {
    assert.equal(headers['x-forwarded-for'], '127.0.0.1');
    assert.equal(headers['x-forwarded-proto'], 'http');
    assert.equal(headers['x-forwarded-host'], new URL(base).host);
    assert.equal(headers['x-forwarded-port'], undefined);
    assert.equal(headers['forwarded'], undefined);
    assert.equal(headers['x-real-ip'], undefined);
    assertNoUnderscoreCopies(headers);
  }

  it("drops a client's X-Forwarded-*, Forwarded and X-Real-IP on a public path, and sets its own", async () => {
    const response = await rawGet('/public/info', spoofed);
    assert.equal(response.status, 200);
    assertOwnForwardingHeaders(upstream.received.at(-1)!.headers);
  });

  it("drops a client's X-Forwarded-*, Forwarded and X-Real-IP on a verified path, and sets its own", async () => {
    const response = await signedGet('/orders', spoofed);
    assert.equal(response.status, 200);
    assertOwnForwardingHeaders(upstream.received.at(-1)!.headers);
  });
});

describe('Gateway behind a trusted proxy (trustProxy): what the proxy says is passed on', () => {
  let store: Store;
  let app: FastifyInstance;
  let upstream: EchoUpstream;
  let base: string;

  before(async () => {
    store = createSqliteStore({ path: ':memory:' });
    upstream = await startEchoUpstream();
    app = await buildServer({
      provider: createProvider({ store }),
      maintenance: false,
      trustProxy: true,
      gateway: { upstream: upstream.url, rules: [{ path: '/public/*', access: 'public' }] },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });

  after(async () => {
    await app.close();
    await upstream.close();
    await store.close();
  });

  it('sets X-Forwarded-For/-Proto/-Host to the client the proxy names, and keeps its Forwarded and X-Real-IP', async () => {
    const response = await fetch(`${base}/public/info`, {
      headers: {
        'x-forwarded-for': '198.51.100.7',
        'x-forwarded-proto': 'https',
        'x-forwarded-host': 'api.example',
        'x-forwarded-port': '443',
        forwarded: 'for=198.51.100.7;proto=https;host=api.example',
        'x-real-ip': '198.51.100.7',
        x_forwarded_for: '203.0.113.67',
      },
    });
    assert.equal(response.status, 200);
    const { headers } = upstream.received.at(-1)!;
    assert.equal(headers['x-forwarded-for'], '198.51.100.7');
    assert.equal(headers['x-forwarded-proto'], 'https');
    assert.equal(headers['x-forwarded-host'], 'api.example');
    assert.equal(headers['x-forwarded-port'], '443');
    assert.equal(headers['forwarded'], 'for=198.51.100.7;proto=https;host=api.example');
    assert.equal(headers['x-real-ip'], '198.51.100.7');
    assert.equal(headers['x_forwarded_for'], undefined);
  });
});
