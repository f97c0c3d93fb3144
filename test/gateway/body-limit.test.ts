// The gateway's body limit: a body it reads (a form, or one read for its oauth_body_hash) is
// bounded by the app's limit, and by DEFAULT_BODY_LIMIT (64 KiB) when nothing sets one, never
// by Fastify's own default (1 MiB). Real HTTP both sides.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { signRequest } from '../../src/client/index.ts';
import { buildApp } from '../../src/http/app.ts';
import { createErrorHandler } from '../../src/http/error-reply.ts';
import { registerGateway } from '../../src/http/gateway/gateway.ts';
import type { GatewayOptions } from '../../src/http/gateway/gateway.ts';
import { DEFAULT_BODY_LIMIT } from '../../src/http/options.ts';
import { createProvider } from '../../src/provider/index.ts';
import type { Provider } from '../../src/provider/index.ts';
import { createSqliteStore } from '../../src/store/index.ts';
import type { Client, Store, TokenCredential } from '../../src/store/index.ts';
import { startEchoUpstream } from './support.ts';
import type { EchoUpstream } from './support.ts';

const transport = { tls: false, trustProxy: false, insecureHttp: false };

describe('Gateway mode: the body limit', () => {
  let dir: string;
  let store: Store;
  let provider: Provider;
  let upstream: EchoUpstream;
  let client: Client;
  let token: TokenCredential;
  const apps: FastifyInstance[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'latchkey-gateway-limit-'));
    store = await createSqliteStore({ path: join(dir, 'latchkey.db') });
    provider = createProvider({ store });
    upstream = await startEchoUpstream();
    client = await provider.clients.register({ name: 'Body limit app' });
    const owner = await provider.owners.signInExternal({
      source: 'delegated',
      subject: 'user-9',
      name: 'Grace',
    });
    token = await provider.tokens.issue({ clientKey: client.key, ownerId: owner.id });
  });

  after(async () => {
    for (const app of apps) await app.close();
    await upstream.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const gateway = (extra: Partial<GatewayOptions> = {}): GatewayOptions => ({
    upstream: upstream.url,
    rules: [{ path: '/outcomes/*', requireBodyHash: true }],
    ...extra,
  });

  /** A Fastify app of its own with only the gateway: no body limit set on the app. */
  async function bareGateway(extra: Partial<GatewayOptions> = {}): Promise<string> {
    const app = Fastify();
    apps.push(app);
    app.setErrorHandler(createErrorHandler(provider.policy.realm));
    await registerGateway(app, provider, gateway(extra), transport);
    await app.listen({ host: '127.0.0.1', port: 0 });
    return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  }

  async function send(base: string, bytes: number, type = 'application/octet-stream') {
    const body =
      type === 'application/x-www-form-urlencoded'
        ? `data=${'a'.repeat(bytes - 5)}`
        : Buffer.alloc(bytes, 7);
    const request = signRequest({
      client,
      token: { token: token.token, secret: token.secret },
      method: 'POST',
      url: `${base}/outcomes/replace`,
      headers: { 'Content-Type': type },
      body,
      ...(typeof body === 'string' ? {} : { bodyHash: true }),
    });
    const response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body,
    });
    return { status: response.status, text: await response.text() };
  }

  it('refuses a body read for its hash beyond DEFAULT_BODY_LIMIT when no limit is set (413)', async () => {
    const base = await bareGateway();
    const before = upstream.received.length;
    const answer = await send(base, DEFAULT_BODY_LIMIT + 1);
    assert.equal(answer.status, 413, answer.text);
    assert.equal(upstream.received.length, before);
    assert.equal((await send(base, DEFAULT_BODY_LIMIT)).status, 200);
  });

  it('refuses a form body beyond DEFAULT_BODY_LIMIT when no limit is set (413)', async () => {
    const base = await bareGateway();
    const type = 'application/x-www-form-urlencoded';
    assert.equal((await send(base, DEFAULT_BODY_LIMIT + 1, type)).status, 413);
    assert.equal((await send(base, DEFAULT_BODY_LIMIT, type)).status, 200);
  });

  it('takes the limit it is given', async () => {
    const base = await bareGateway({ bodyLimit: 2 * DEFAULT_BODY_LIMIT });
    assert.equal((await send(base, 2 * DEFAULT_BODY_LIMIT)).status, 200);
    assert.equal((await send(base, 2 * DEFAULT_BODY_LIMIT + 1)).status, 413);
  });

  it("takes the app's limit in an app", async () => {
    const app = await buildApp({ provider, bodyLimit: 4096, gateway: gateway() });
    apps.push(app);
    await app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    assert.equal((await send(base, 4096)).status, 200);
    assert.equal((await send(base, 4097)).status, 413);
  });
});
