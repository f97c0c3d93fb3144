// Non-protocol parameters in the Authorization header (RFC 5849 §3.4.1.3.1 signs them) behind
// the gateway: accepted when signed, refused when added after signing, and never forwarded.
// The upstream reads only the query and the body, both signed, so a header-only parameter
// cannot make it act on anything the client did not sign where it reads (docs/decisions.md,
// "What differences are tolerated").
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { signRequest } from '../../src/client/index.ts';
import { buildAuthorizationHeader, parseAuthorizationHeader } from '../../src/protocol/index.ts';
import { buildServer } from '../../src/server.ts';
import { createProvider } from '../../src/provider/index.ts';
import { createSqliteStore } from '../../src/store/index.ts';
import type { Client, Store, TokenCredential } from '../../src/store/index.ts';
import { startEchoUpstream } from './support.ts';
import type { EchoUpstream } from './support.ts';

describe('Gateway: non-protocol parameters in the Authorization header', () => {
  let store: Store;
  let app: FastifyInstance;
  let upstream: EchoUpstream;
  let base: string;
  let client: Client;
  let token: TokenCredential;

  before(async () => {
    store = createSqliteStore({ path: ':memory:' });
    const provider = createProvider({ store });
    upstream = await startEchoUpstream();
    app = await buildServer({ provider, maintenance: false, gateway: { upstream: upstream.url } });
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    client = await provider.clients.register({ name: 'Header parameters app' });
    const owner = await provider.owners.create('alice', 'correct horse battery');
    token = await provider.tokens.issue({ clientKey: client.key, ownerId: owner.id });
  });

  after(async () => {
    await app.close();
    await upstream.close();
    await store.close();
  });

  /** A GET of /orders?id=7 with `id=7` copied into the header and `role=admin` only there. */
  function signed() {
    return signRequest({
      method: 'GET',
      url: `${base}/orders?id=7`,
      client,
      token: { token: token.token, secret: token.secret },
      protocolParameters: { id: '7', role: 'admin' },
    });
  }

  it('accepts them signed, and forwards only the query: no Authorization, no header-only pair', async () => {
    const request = signed();
    assert.match(request.headers['Authorization'] ?? '', /role="admin"/);
    const response = await fetch(request.url, { headers: request.headers });
    assert.equal(response.status, 200);
    const received = upstream.received.at(-1)!;
    assert.equal(received.url, '/orders?id=7');
    assert.equal(received.headers['authorization'], undefined);
    assert.doesNotMatch(JSON.stringify(received.headers), /admin/);
  });

  it('refuses one added after signing with 401 signature_invalid, and forwards nothing', async () => {
    const request = signed();
    const header = parseAuthorizationHeader(request.headers['Authorization']!)!;
    const smuggled = buildAuthorizationHeader([...header.parameters, ['debug', 'true']]);
    const before = upstream.received.length;
    const response = await fetch(request.url, {
      headers: { ...request.headers, Authorization: smuggled },
    });
    assert.equal(response.status, 401);
    assert.match(await response.text(), /oauth_problem=signature_invalid/);
    assert.equal(upstream.received.length, before);
  });
});
