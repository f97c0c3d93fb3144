// The Request Body Hash extension in gateway mode: a body that is not form-encoded is
// checked against a signed oauth_body_hash before it is forwarded, exactly those bytes go
// upstream, and a rule can require the hash (`requireBodyHash`). Real HTTP both sides.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { signRequest } from '../../src/client/index.ts';
import type { SignOptions } from '../../src/client/index.ts';
import { buildApp } from '../../src/http/app.ts';
import { createProvider } from '../../src/provider/index.ts';
import { createSqliteStore } from '../../src/store/index.ts';
import type { Client, Store, TokenCredential } from '../../src/store/index.ts';
import { startEchoUpstream } from './support.ts';
import type { EchoUpstream } from './support.ts';

const sha1 = (body: Uint8Array | string) => createHash('sha1').update(body).digest('base64');
// Not valid UTF-8 and not what JSON.stringify would give back: any re-encoding shows.
const BINARY = Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x00, 0x22, 0x7d, 0x0a, 0xc3, 0x28]);
const JSON_TEXT = '{ "amount" : 10,\n  "to": "zoë" }';

describe('Gateway mode: oauth_body_hash', () => {
  let dir: string;
  let store: Store;
  let app: FastifyInstance;
  let upstream: EchoUpstream;
  let base: string;
  let client: Client;
  let token: TokenCredential;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'latchkey-gateway-hash-'));
    store = await createSqliteStore({ path: join(dir, 'latchkey.db') });
    const provider = createProvider({ store });
    upstream = await startEchoUpstream();
    app = await buildApp({
      provider,
      gateway: {
        upstream: upstream.url,
        rules: [
          { path: '/public/*', access: 'public' },
          { path: '/outcomes/*', requireBodyHash: true },
        ],
      },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    client = await provider.clients.register({ name: 'Body hash app' });
    const owner = await provider.owners.signInExternal({
      source: 'delegated',
      subject: 'user-7',
      name: 'Ada',
    });
    token = await provider.tokens.issue({ clientKey: client.key, ownerId: owner.id });
  });

  after(async () => {
    await app.close();
    await upstream.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function signed(options: Omit<SignOptions, 'client' | 'url'> & { path: string }) {
    return signRequest({
      client,
      token: { token: token.token, secret: token.secret },
      ...options,
      url: base + options.path,
    });
  }

  async function send(request: ReturnType<typeof signRequest>, body = request.body) {
    const response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      ...(body === undefined ? {} : { body }),
    });
    return { status: response.status, text: await response.text() };
  }

  it('never forwards a JSON body whose oauth_body_hash is bogus (401 body_hash_invalid)', async () => {
    const before = upstream.received.length;
    const request = signed({
      method: 'POST',
      path: '/orders',
      headers: { 'Content-Type': 'application/json' },
      body: JSON_TEXT,
      protocolParameters: { oauth_body_hash: sha1('{}') },
    });
    const answer = await send(request);
    assert.equal(answer.status, 401, answer.text);
    assert.match(answer.text, /oauth_problem=body_hash_invalid/);
    assert.equal(upstream.received.length, before);
  });

  it('never forwards a body changed after signing', async () => {
    const before = upstream.received.length;
    const request = signed({
      method: 'PUT',
      path: '/blobs/1',
      headers: { 'Content-Type': 'application/octet-stream' },
      body: BINARY,
      bodyHash: true,
    });
    const answer = await send(request, Buffer.concat([BINARY, Buffer.from('!')]));
    assert.equal(answer.status, 401, answer.text);
    assert.match(answer.text, /oauth_problem=body_hash_invalid/);
    assert.equal(upstream.received.length, before);
  });

  for (const [type, body] of [
    ['application/json; charset=utf-8', Buffer.from(JSON_TEXT)],
    ['application/octet-stream', BINARY],
    ['text/plain', Buffer.from('plain text\r\n')],
  ] as const) {
    it(`forwards exactly the bytes that were hashed, headers as sent (${type})`, async () => {
      const request = signed({
        method: 'POST',
        path: '/outcomes/replace?id=1',
        headers: { 'Content-Type': type },
        body,
        bodyHash: true,
      });
      const answer = await send(request);
      assert.equal(answer.status, 200, answer.text);
      const received = upstream.received.at(-1)!;
      assert.deepEqual(received.body, body);
      assert.equal(received.headers['content-type'], type);
      assert.equal(received.headers['content-length'], String(body.length));
      assert.equal(received.url, '/outcomes/replace?id=1');
      assert.equal(received.headers['x-oauth-owner'], 'user-7');
    });
  }

  it('refuses a body without oauth_body_hash where a rule requires one (400 parameter_absent)', async () => {
    const before = upstream.received.length;
    const request = signed({
      method: 'POST',
      path: '/outcomes/replace',
      headers: { 'Content-Type': 'application/xml' },
      body: '<replaceResultRequest/>',
    });
    const answer = await send(request);
    assert.equal(answer.status, 400, answer.text);
    assert.match(answer.text, /oauth_problem=parameter_absent/);
    assert.match(answer.text, /oauth_parameters_absent=oauth_body_hash/);
    assert.equal(upstream.received.length, before);
  });

  it('still accepts a request without a body, or with a form body, where a rule requires a body hash', async () => {
    assert.equal((await send(signed({ method: 'GET', path: '/outcomes/list' }))).status, 200);
    const form = signed({
      method: 'POST',
      path: '/outcomes/form',
      body: new URLSearchParams([['score', '0.9']]),
    });
    assert.equal((await send(form)).status, 200);
    assert.equal(upstream.received.at(-1)!.body.toString(), 'score=0.9');
  });

  it('streams a body without a body hash where no rule requires one, as before', async () => {
    const bytes = Buffer.alloc(200_000, 7);
    const request = signed({
      method: 'PUT',
      path: '/blobs/2',
      headers: { 'Content-Type': 'application/octet-stream' },
      body: bytes,
    });
    assert.equal((await send(request)).status, 200);
    assert.deepEqual(upstream.received.at(-1)!.body, bytes);
  });
});
