// One protected-resource suite, run against every way a team mounts Latchkey's verification
// in its own server (Fastify plugin, Express middleware, node:http helper). Each adapter's
// test file starts a real app whose handler answers with the caller and the form it saw.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import OAuth from 'oauth-1.0a';
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
import type { Client, Store, TokenCredential } from '../../src/store/index.ts';

/**
 * A running app protected by one adapter; routes: `/hello` (token), `/open` (two-legged),
 * `/write` (scope write), `/hashed` (POST, oauth_body_hash required; answers the JSON body
 * it was handed as `json`).
 */
export interface MountedApp {
  readonly url: string;
  close(): Promise<void>;
}

export type StartMountedApp = (provider: Provider) => Promise<MountedApp>;

export function describeMountedVerifier(name: string, start: StartMountedApp): void {
  describe(`Middleware: ${name}`, () => {
    let dir: string;
    let latchkeyStore: Store;
    let appStore: Store;
    let latchkey: Awaited<ReturnType<typeof buildApp>>;
    let latchkeyUrl: string;
    let mounted: MountedApp;
    let client: Client;
    let token: TokenCredential;
    let latchkeyProvider: Provider;
    let ownerId: string;

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'latchkey-mounting-'));
      const path = join(dir, 'latchkey.db');
      // The Latchkey server and the team's app each open the same store, as two processes would.
      latchkeyStore = await createSqliteStore({ path });
      latchkeyProvider = createProvider({ store: latchkeyStore });
      latchkey = await buildApp({ provider: latchkeyProvider });
      latchkeyUrl = await latchkey.listen({ host: '127.0.0.1', port: 0 });
      client = await latchkeyProvider.clients.register({ name: 'Mounted test app' });
      const owner = await latchkeyProvider.owners.create('mounted-owner', 'correct horse battery');
      ownerId = owner.id;
      token = await latchkeyProvider.tokens.issue({
        clientKey: client.key,
        ownerId: owner.id,
        scope: 'read',
      });
      appStore = await createSqliteStore({ path });
      mounted = await start(createProvider({ store: appStore }));
    });

    after(async () => {
      await mounted.close();
      await latchkey.close();
      await appStore.close();
      await latchkeyStore.close();
      rmSync(dir, { recursive: true, force: true });
    });

    function signed(options: Omit<SignOptions, 'client'> & { withToken?: boolean }) {
      return signRequest({
        client,
        token:
          options.withToken === false ? undefined : { token: token.token, secret: token.secret },
        ...options,
      });
    }

    async function send(request: ReturnType<typeof signRequest>) {
      const response = await fetch(request.url, {
        method: request.method,
        headers: request.headers,
        ...(request.body === undefined ? {} : { body: request.body }),
      });
      return { status: response.status, headers: response.headers, text: await response.text() };
    }

    it('tells the client its rate-limit standing: RateLimit-* on each answer, with the 429 too', async () => {
      const registered = await latchkeyProvider.clients.register({ name: 'Paced app' });
      const paced = await latchkeyProvider.clients.update(registered.key, { requestsPerMinute: 2 });
      const pacedToken = await latchkeyProvider.tokens.issue({
        clientKey: paced.key,
        ownerId,
        scope: 'read',
      });
      const standings = [];
      for (let i = 0; i < 3; i++) {
        const response = await send(
          signRequest({
            method: 'GET',
            url: `${mounted.url}/hello`,
            client: { key: paced.key, secret: paced.secret },
            token: { token: pacedToken.token, secret: pacedToken.secret },
          }),
        );
        standings.push([
          response.status,
          response.headers.get('ratelimit-limit'),
          response.headers.get('ratelimit-remaining'),
          Number(response.headers.get('ratelimit-reset')) >= 1,
        ]);
      }
      assert.deepEqual(standings, [
        [200, '2', '1', true],
        [200, '2', '0', true],
        [429, '2', '0', true],
      ]);
    });

    it('attaches the client, owner and scope to a verified request', async () => {
      const response = await send(signed({ method: 'GET', url: `${mounted.url}/hello?x=1` }));
      assert.equal(response.status, 200, response.text);
      const body = JSON.parse(response.text);
      assert.deepEqual(body.caller.client, { key: client.key, name: 'Mounted test app' });
      assert.equal(body.caller.owner.name, 'mounted-owner');
      assert.equal(body.caller.owner.subject, body.caller.owner.id);
      assert.equal(body.caller.scope, 'read');
    });

    for (const transmission of ['header', 'body', 'query'] as const) {
      it(`verifies a form body the signature covers and still hands it to the handler (${transmission})`, async () => {
        const request = signed({
          method: 'POST',
          url: `${mounted.url}/hello`,
          body: new URLSearchParams([['note', 'a b+c ~%é']]),
          transmission,
        });
        const response = await send(request);
        assert.equal(response.status, 200, response.text);
        assert.equal(JSON.parse(response.text).form.note, 'a b+c ~%é');
      });
    }

    it('verifies non-oauth Authorization header parameters (§3.4.1.3.1) and hands the handler only the signed form', async () => {
      // As a library that copies the form into the header, plus one pair only the header has.
      const request = signed({
        method: 'POST',
        url: `${mounted.url}/hello`,
        body: new URLSearchParams([['note', 'n']]),
        protocolParameters: { note: 'n', role: 'admin' },
      });
      const response = await send(request);
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(JSON.parse(response.text).form, { note: 'n' });
      const added = request.headers['Authorization']!.replace('role="admin"', 'role="root"');
      const changed = await send({
        ...request,
        headers: { ...request.headers, Authorization: added },
      });
      assert.equal(changed.status, 401);
      assert.match(changed.text, /oauth_problem=signature_invalid/);
    });

    it('refuses a form body changed after signing', async () => {
      const request = signed({
        method: 'POST',
        url: `${mounted.url}/hello`,
        body: new URLSearchParams([['amount', '10']]),
      });
      const response = await send({ ...request, body: 'amount=1000' });
      assert.equal(response.status, 401);
      assert.match(response.text, /oauth_problem=signature_invalid/);
    });

    it('refuses a JSON body whose oauth_body_hash does not match it (401 body_hash_invalid)', async () => {
      const request = signed({
        method: 'POST',
        url: `${mounted.url}/hello`,
        headers: { 'Content-Type': 'application/json' },
        body: '{"amount":10}',
        bodyHash: true,
      });
      const response = await send({ ...request, body: '{"amount":1000}' });
      assert.equal(response.status, 401, response.text);
      assert.match(response.text, /oauth_problem=body_hash_invalid/);
    });

    it('with requireBodyHash: verifies the hashed JSON body and still hands it to the handler', async () => {
      const response = await send(
        signed({
          method: 'POST',
          url: `${mounted.url}/hashed`,
          headers: { 'Content-Type': 'application/json' },
          body: '{"score":0.9,"note":"zoë"}',
          bodyHash: true,
        }),
      );
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(JSON.parse(response.text).json, { score: 0.9, note: 'zoë' });
    });

    it('with requireBodyHash: refuses a JSON body sent without oauth_body_hash (400 parameter_absent)', async () => {
      const response = await send(
        signed({
          method: 'POST',
          url: `${mounted.url}/hashed`,
          headers: { 'Content-Type': 'application/json' },
          body: '{"score":0.9}',
        }),
      );
      assert.equal(response.status, 400, response.text);
      assert.match(response.text, /oauth_parameters_absent=oauth_body_hash/);
    });

    it('answers failures exactly as Latchkey does: status, oauth_problem and WWW-Authenticate', async () => {
      const response = await send(
        signed({ method: 'GET', url: `${mounted.url}/hello`, withToken: false }),
      );
      assert.equal(response.status, 400);
      assert.match(response.text, /^oauth_problem=parameter_absent&oauth_problem_advice=/);
      const unsigned = await fetch(`${mounted.url}/hello`);
      assert.equal(unsigned.status, 401);
      assert.equal(
        unsigned.headers.get('www-authenticate'),
        'OAuth realm="Latchkey", oauth_problem="parameter_absent"',
      );
      assert.equal(unsigned.headers.get('content-type'), 'application/x-www-form-urlencoded');
    });

    it('accepts a request signed by the client alone where the route allows it', async () => {
      const response = await send(
        signed({ method: 'GET', url: `${mounted.url}/open`, withToken: false }),
      );
      assert.equal(response.status, 200, response.text);
      assert.equal(JSON.parse(response.text).caller.owner, null);
    });

    it('answers 403 permission_denied when the token lacks the scope a route requires', async () => {
      const response = await send(signed({ method: 'GET', url: `${mounted.url}/write` }));
      assert.equal(response.status, 403);
      assert.match(response.text, /oauth_problem=permission_denied/);
    });

    it('sees the scope the owner granted on consent (write unticked), not the one asked for', async () => {
      const credentials = { key: client.key, secret: client.secret };
      const temporary = await processTemporaryCredentialsResponse(
        await requestTemporaryCredentials(`${latchkeyUrl}/oauth/request_token`, {
          client: credentials,
          callback: 'oob',
          scope: 'read write',
        }),
      );
      // The consent page's Allow with only "read" ticked makes this call.
      const { verifier } = await latchkeyProvider.authorization.approve(temporary.token, ownerId, {
        scope: 'read',
      });
      const granted = await processTokenCredentialsResponse(
        await requestTokenCredentials(`${latchkeyUrl}/oauth/access_token`, {
          client: credentials,
          temporary,
          verifier,
        }),
      );
      const call = (path: string) =>
        send(signRequest({ client, token: granted, method: 'GET', url: `${mounted.url}${path}` }));
      const hello = await call('/hello');
      assert.equal(hello.status, 200, hello.text);
      assert.equal(JSON.parse(hello.text).caller.scope, 'read');
      assert.equal((await call('/write')).status, 403);
    });

    it('refuses a nonce the Latchkey server already saw (the stores are shared)', async () => {
      const nonce = `shared-${name.replace(/\W/g, '')}`;
      const timestamp = Math.floor(Date.now() / 1000);
      const atLatchkey = signed({ method: 'GET', url: `${latchkeyUrl}/api/me`, nonce, timestamp });
      assert.equal((await send(atLatchkey)).status, 200);
      const atApp = signed({ method: 'GET', url: `${mounted.url}/hello`, nonce, timestamp });
      const response = await send(atApp);
      assert.equal(response.status, 401);
      assert.match(response.text, /oauth_problem=nonce_used/);
    });

    it('verifies requests signed by a client library nobody here wrote (oauth-1.0a)', async () => {
      const oauth = new OAuth({
        consumer: { key: client.key, secret: client.secret },
        signature_method: 'HMAC-SHA1',
        hash_function: (text, key) => createHmac('sha1', key).update(text).digest('base64'),
      });
      const url = `${mounted.url}/hello`;
      const data = { note: 'spaces and ünïcode' };
      const authorization = oauth.toHeader(
        oauth.authorize({ url, method: 'POST', data }, { key: token.token, secret: token.secret }),
      );
      const response = await fetch(url, {
        method: 'POST',
        headers: { ...authorization, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(data).toString(),
      });
      assert.equal(response.status, 200, await response.clone().text());
      const body = (await response.json()) as { form: Record<string, string> };
      assert.equal(body.form.note, 'spaces and ünïcode');
    });
  });
}
