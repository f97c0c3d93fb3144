// Per-client scope ceilings (docs/decisions.md "Scope ceilings"): a client asks for, is
// offered and is granted only scopes within the ceiling its operator set; each step refuses
// what goes beyond it, a forged consent form included.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  OAuthResponseError,
  processTokenCredentialsResponse,
  requestTokenCredentials,
  createSigningFetch,
} from '../../src/client/index.ts';
import type { Client } from '../../src/store/index.ts';
import { authorizePath, BASE, injectFetch, startWeb, text } from './support.ts';
import type { WebWorld } from './support.ts';

const policy = {
  scopes: {
    read: 'See your photos',
    write: 'Change your photos',
    admin: 'Manage your account',
  },
  defaultScope: 'read write',
};

describe('scope ceilings: the temporary credential request (§2.1)', () => {
  let world: WebWorld;
  let client: Client;
  before(async () => {
    world = await startWeb({ policy });
    client = await world.client({ scopes: ['read', 'write'] });
  });
  after(() => world.close());

  it('refuses a scope beyond the ceiling at once: 403 permission_denied naming it', async () => {
    const refused = await world.temporary(client, 'oob', 'read admin').then(
      () => assert.fail('temporary credentials issued beyond the ceiling'),
      (error: unknown) => error,
    );
    assert.ok(refused instanceof OAuthResponseError);
    assert.equal(refused.status, 403);
    assert.equal(refused.problem, 'permission_denied');
    assert.match(refused.message, /admin is outside them/);
    assert.match(refused.message, /read, write/);
  });

  it('issues a scope within the ceiling', async () => {
    const temporary = await world.temporary(client, 'oob', 'write');
    const stored = await world.store.temporaryCredentials.find(temporary.token);
    assert.equal(stored?.requestedScope, 'write');
  });

  it("narrows the server's default scope to the ceiling when nothing is asked", async () => {
    const narrow = await world.client({ scopes: ['read'] });
    const temporary = await world.temporary(narrow, 'oob');
    const stored = await world.store.temporaryCredentials.find(temporary.token);
    assert.equal(stored?.requestedScope, 'read');
  });

  it('refuses nothing-asked when none of the default is within the ceiling', async () => {
    const other = await world.client({ scopes: ['admin'] });
    const refused = await world.temporary(other, 'oob').then(
      () => assert.fail('issued outside the ceiling'),
      (error: unknown) => error,
    );
    assert.ok(refused instanceof OAuthResponseError);
    assert.equal(refused.status, 403);
    assert.match(refused.message, /ask for one of them with the scope parameter/);
  });

  it('leaves a client without a ceiling free to ask for any scope the server knows', async () => {
    const free = await world.client();
    const temporary = await world.temporary(free, 'oob', 'read write admin');
    const stored = await world.store.temporaryCredentials.find(temporary.token);
    assert.equal(stored?.requestedScope, 'read write admin');
  });
});

describe('scope ceilings: the consent page and the decision (§2.2)', () => {
  let world: WebWorld;
  before(async () => {
    world = await startWeb({ policy });
    await world.owner('alice');
  });
  after(() => world.close());

  it('offers only what is within the ceiling when it was lowered after the request', async () => {
    const client = await world.client();
    const temporary = await world.temporary(client, 'oob', 'read write');
    await world.provider.clients.update(client.key, { scopes: ['read'] });
    const browser = world.browser();
    await browser.signIn('alice');
    const page = (await browser.get(authorizePath(temporary))).body;
    assert.match(page, /<input type="checkbox" name="scope" value="read" checked>/);
    assert.doesNotMatch(page, /value="write"/);
  });

  it('refuses a request left with nothing it asked for within the ceiling', async () => {
    const client = await world.client();
    const temporary = await world.temporary(client, 'oob', 'write');
    await world.provider.clients.update(client.key, { scopes: ['read'] });
    const browser = world.browser();
    await browser.signIn('alice');
    const page = await browser.get(authorizePath(temporary));
    assert.equal(page.statusCode, 403);
    assert.match(text(page.body), /no longer lets it have/);
  });

  it('refuses a forged form naming a scope beyond the ceiling, and approves nothing', async () => {
    const client = await world.client({ scopes: ['read'] });
    const temporary = await world.temporary(client, 'https://printer.example/callback', 'read');
    const browser = world.browser();
    await browser.signIn('alice');
    const page = await browser.get(authorizePath(temporary));
    const forged = new URLSearchParams([
      ['oauth_token', temporary.token],
      ['decision', 'allow'],
      ['scope_offered', '1'],
      ['scope', 'read'],
      ['scope', 'admin'],
    ]);
    const answer = await browser.post('/oauth/authorize', forged, page);
    assert.equal(answer.statusCode, 403);
    assert.match(text(answer.body), /may not be given admin/);
    const stored = await world.store.temporaryCredentials.find(temporary.token);
    assert.equal(stored?.state, 'issued');
  });

  it('grants within the ceiling when the form stays within it', async () => {
    const client = await world.client();
    const temporary = await world.temporary(
      client,
      'https://printer.example/callback',
      'read write',
    );
    await world.provider.clients.update(client.key, { scopes: ['read'] });
    const browser = world.browser();
    await browser.signIn('alice');
    const page = await browser.get(authorizePath(temporary));
    const answer = new URLSearchParams([
      ['oauth_token', temporary.token],
      ['decision', 'allow'],
      ['scope_offered', '1'],
      ['scope', 'read'],
    ]);
    const allowed = await browser.post('/oauth/authorize', answer, page);
    assert.equal(allowed.statusCode, 303);
    const stored = await world.store.temporaryCredentials.find(temporary.token);
    assert.equal(stored?.approvedScope, 'read');
  });

  it("narrows an existing token's scope at once when the ceiling is lowered (/api/me)", async () => {
    const client = await world.client();
    const temporary = await world.temporary(
      client,
      'https://printer.example/callback',
      'read write',
    );
    const browser = world.browser();
    await browser.signIn('alice');
    const page = await browser.get(authorizePath(temporary));
    const allowed = await browser.post(
      '/oauth/authorize',
      new URLSearchParams([
        ['oauth_token', temporary.token],
        ['decision', 'allow'],
      ]),
      page,
    );
    const verifier = new URL(String(allowed.headers.location)).searchParams.get('oauth_verifier')!;
    const credentials = { key: client.key, secret: client.secret };
    const token = await processTokenCredentialsResponse(
      await requestTokenCredentials(`${BASE}/oauth/access_token`, {
        client: credentials,
        temporary,
        verifier,
        fetch: injectFetch(world.app),
      }),
    );
    const api = createSigningFetch({ client: credentials, token, fetch: injectFetch(world.app) });
    const scopeNow = async () =>
      ((await (await api(`${BASE}/api/me`)).json()) as { scope: string }).scope;
    assert.equal(await scopeNow(), 'read write');
    await world.provider.clients.update(client.key, { scopes: ['read'] });
    assert.equal(await scopeNow(), 'read');
    // Raised again, the token has what it was granted: the ceiling never adds.
    await world.provider.clients.update(client.key, { scopes: ['read', 'write', 'admin'] });
    assert.equal(await scopeNow(), 'read write');
  });
});

describe('scope ceilings in the developer portal: shown, not set there', () => {
  let world: WebWorld;
  before(async () => {
    world = await startWeb({ policy });
    await world.owner('dev');
  });
  after(() => world.close());

  it("shows the operator's ceiling on the app's page, and an edit naming scopes leaves it", async () => {
    const developerId = (await world.provider.owners.get('dev')).id;
    const client = await world.client({ developerId, signatureMethods: ['HMAC-SHA1'] });
    const browser = world.browser();
    await browser.signIn('dev');
    const path = `/developer/apps/${encodeURIComponent(client.key)}`;
    assert.match(
      text((await browser.get(path)).body),
      /Scopes\s*Any scope this server offers: read, write, admin/,
    );
    await world.provider.clients.update(client.key, { scopes: ['read'] });
    assert.match(text((await browser.get(path)).body), /Scopes\s*read, set by the operator/);
    const form = await browser.get(`${path}/edit`);
    const edited = await browser.post(
      path,
      new URLSearchParams([
        ['name', 'Photo Printer'],
        ['signature_methods', 'HMAC-SHA1'],
        ['scopes', 'admin'],
        ['scope', 'admin'],
      ]),
      form,
    );
    assert.equal(edited.statusCode, 303);
    assert.deepEqual((await world.provider.clients.get(client.key)).scopes, ['read']);
  });
});
