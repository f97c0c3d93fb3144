// The gateway after a switch from another provider: credentials of any characters, the
// protocol parameters real clients re-send (never forwarded), and the scope the owner granted
// on consent (X-OAuth-Scope; a path that needs more answers 403).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import {
  processTemporaryCredentialsResponse,
  processTokenCredentialsResponse,
  requestTemporaryCredentials,
  requestTokenCredentials,
  signRequest,
} from '../../src/client/index.ts';
import type { SignOptions } from '../../src/client/index.ts';
import { buildApp } from '../../src/http/app.ts';
import { createProvider } from '../../src/provider/index.ts';
import type { Provider } from '../../src/provider/index.ts';
import { createSqliteStore } from '../../src/store/index.ts';
import type { Owner, Store } from '../../src/store/index.ts';
import { startEchoUpstream } from './support.ts';
import type { EchoUpstream } from './support.ts';

describe('Gateway mode after switching providers', () => {
  let dir: string;
  let store: Store;
  let provider: Provider;
  let app: FastifyInstance;
  let upstream: EchoUpstream;
  let base: string;
  let owner: Owner;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'latchkey-gateway-'));
    store = createSqliteStore({ path: join(dir, 'latchkey.db') });
    provider = createProvider({ store });
    upstream = await startEchoUpstream();
    app = await buildApp({
      provider,
      gateway: { upstream: upstream.url, rules: [{ path: '/admin/*', scope: 'write' }] },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    owner = await provider.owners.create('switch-owner', 'correct horse battery');
  });

  after(async () => {
    await app.close();
    await upstream.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function send(options: SignOptions) {
    const signed = signRequest({ ...options, url: base + String(options.url) });
    const response = await fetch(signed.url, {
      method: signed.method,
      headers: signed.headers,
      ...(signed.body === undefined ? {} : { body: signed.body }),
    });
    return { status: response.status, text: await response.text() };
  }

  function last() {
    const record = upstream.received.at(-1);
    assert.ok(record, 'the upstream received the request');
    return record;
  }

  it('verifies a migrated key and secrets of any characters, and names the key percent-encoded', async () => {
    const client = await provider.clients.register({
      name: 'Legacy',
      key: 'legacy key/ä',
      secret: 'hmac secret+with/odd&chars~',
    });
    const token = await provider.tokens.issue({
      clientKey: client.key,
      ownerId: owner.id,
      secret: 'tök€n s/cr+t=',
    });
    const response = await send({
      method: 'GET',
      url: '/orders',
      client: { key: client.key, secret: 'hmac secret+with/odd&chars~' },
      token: { token: token.token, secret: 'tök€n s/cr+t=' },
    });
    assert.equal(response.status, 200, response.text);
    assert.equal(last().headers['x-oauth-client'], 'legacy%20key%2F%C3%A4');
  });

  for (const transmission of ['header', 'body', 'query'] as const) {
    it(`never forwards a re-sent oauth_verifier or oauth_callback (${transmission})`, async () => {
      const client = await provider.clients.register({ name: `Re-sender ${transmission}` });
      const token = await provider.tokens.issue({ clientKey: client.key, ownerId: owner.id });
      const response = await send({
        method: 'POST',
        url: '/orders?x=1',
        body: new URLSearchParams([['note', 'n']]),
        client,
        token,
        transmission,
        protocolParameters: { oauth_verifier: 'old', oauth_callback: 'oob' },
      });
      assert.equal(response.status, 200, response.text);
      const received = last();
      assert.equal(received.url, '/orders?x=1');
      assert.equal(received.body.toString(), 'note=n');
      assert.equal(received.headers.authorization, undefined);
    });
  }

  it('passes the scope the owner granted on consent (write unticked), and refuses a path that needs write', async () => {
    const client = await provider.clients.register({ name: 'Narrowed' });
    const credentials = { key: client.key, secret: client.secret };
    const temporary = await processTemporaryCredentialsResponse(
      await requestTemporaryCredentials(`${base}/oauth/request_token`, {
        client: credentials,
        callback: 'oob',
        scope: 'read write',
      }),
    );
    // The consent page's Allow with only "read" ticked makes this call.
    const { verifier } = await provider.authorization.approve(temporary.token, owner.id, {
      scope: 'read',
    });
    const token = await processTokenCredentialsResponse(
      await requestTokenCredentials(`${base}/oauth/access_token`, {
        client: credentials,
        temporary,
        verifier,
      }),
    );
    assert.equal((await send({ method: 'GET', url: '/photos', client, token })).status, 200);
    assert.equal(last().headers['x-oauth-scope'], 'read');
    const refused = await send({ method: 'GET', url: '/admin/users', client, token });
    assert.equal(refused.status, 403);
    assert.match(refused.text, /oauth_problem=permission_denied/);
  });
});
