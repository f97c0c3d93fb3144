// The gateway with an existing token after its client's scope ceiling is lowered
// (docs/decisions.md "Scope ceilings"): a rule's scope is checked against the token's scope
// within the ceiling, and the upstream is told that narrowed scope, from the next request on.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { signRequest } from '../../src/client/index.ts';
import { buildApp } from '../../src/http/app.ts';
import { createProvider } from '../../src/provider/index.ts';
import type { Provider } from '../../src/provider/index.ts';
import { createSqliteStore } from '../../src/store/index.ts';
import type { Client, Store, TokenCredential } from '../../src/store/index.ts';
import { startEchoUpstream } from './support.ts';
import type { EchoUpstream } from './support.ts';

describe('Gateway: a lowered scope ceiling reaches tokens already issued', () => {
  let dir: string;
  let store: Store;
  let provider: Provider;
  let app: FastifyInstance;
  let upstream: EchoUpstream;
  let base: string;
  let client: Client;
  let token: TokenCredential;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'latchkey-gateway-ceiling-'));
    store = await createSqliteStore({ path: join(dir, 'latchkey.db') });
    provider = createProvider({ store });
    upstream = await startEchoUpstream();
    app = await buildApp({
      provider,
      gateway: {
        upstream: upstream.url,
        responseTimeoutMs: 300,
        rules: [
          { path: '/albums/*', methods: ['POST'], scope: 'write' },
          { path: '/albums/*', methods: ['GET'], scope: 'read' },
        ],
      },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    client = await provider.clients.register({ name: 'Album app' });
    const owner = await provider.owners.create('album-owner', 'correct horse battery');
    token = await provider.tokens.issue({
      clientKey: client.key,
      ownerId: owner.id,
      scope: 'read write',
    });
  });

  after(async () => {
    await app.close();
    await upstream.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function send(method: 'GET' | 'POST', path: string) {
    const signed = signRequest({
      method,
      url: base + path,
      client,
      token: { token: token.token, secret: token.secret },
    });
    return fetch(signed.url, { method: signed.method, headers: signed.headers });
  }

  it('forwards with the granted scope while the client has no ceiling', async () => {
    const response = await send('POST', '/albums/1');
    assert.equal(response.status, 200);
    assert.equal(upstream.received.at(-1)?.headers['x-oauth-scope'], 'read write');
  });

  it('refuses what the lowered ceiling leaves out (403), forwards the rest, narrowed', async () => {
    await provider.clients.update(client.key, { scopes: ['read'] });
    const before = upstream.received.length;
    const refused = await send('POST', '/albums/1');
    assert.equal(refused.status, 403);
    assert.match(await refused.text(), /oauth_problem=permission_denied/);
    assert.equal(upstream.received.length, before, 'the upstream never saw it');
    const allowed = await send('GET', '/albums/1');
    assert.equal(allowed.status, 200);
    assert.equal(upstream.received.at(-1)?.headers['x-oauth-scope'], 'read');
  });

  it('restores what was granted when the ceiling is raised again', async () => {
    await provider.clients.update(client.key, { scopes: ['read', 'write'] });
    assert.equal((await send('POST', '/albums/1')).status, 200);
    assert.equal(upstream.received.at(-1)?.headers['x-oauth-scope'], 'read write');
  });
});
