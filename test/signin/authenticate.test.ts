import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { requestTokenCredentials } from '../../src/client/index.ts';
import type { Client } from '../../src/store/index.ts';
import { BASE, authorizePath, connect, injectFetch, startWeb, text } from '../web/support.ts';
import type { Browser, WebWorld } from '../web/support.ts';

describe('"Sign in with": GET /oauth/authenticate', () => {
  let world: WebWorld;
  before(async () => {
    world = await startWeb();
    await world.owner('alice');
    await world.owner('bob');
  });
  after(() => world.close());

  async function signedIn(username = 'alice') {
    const browser = world.browser();
    await browser.signIn(username);
    return browser;
  }

  async function authenticatePath(client: Client, query = '', callback?: string) {
    const path = authorizePath(await world.temporary(client, callback));
    return { path: path.replace('/oauth/authorize', '/oauth/authenticate') + query };
  }

  function verifierOf(location: unknown): string | null {
    return new URL(String(location)).searchParams.get('oauth_verifier');
  }

  it('sends an owner who allowed the client straight back to the callback with a verifier', async () => {
    const client = await world.client({ callbacks: ['https://printer.example/callback'] });
    const browser = await signedIn();
    await connect(world, browser, client);
    const temporary = await world.temporary(client);
    const path = authorizePath(temporary).replace('/oauth/authorize', '/oauth/authenticate');
    const reply = await browser.get(path);
    assert.equal(reply.statusCode, 303);
    const location = new URL(String(reply.headers.location));
    assert.equal(location.origin + location.pathname, 'https://printer.example/callback');
    assert.equal(location.searchParams.get('oauth_token'), temporary.token);
    const verifier = verifierOf(reply.headers.location)!;
    // The verifier is good for a token, exactly as one from the consent page.
    const token = await requestTokenCredentials(`${BASE}/oauth/access_token`, {
      client: { key: client.key, secret: client.secret },
      temporary,
      verifier,
      fetch: injectFetch(world.app),
    });
    assert.equal(token.status, 200);
    const audited = await world.provider.audit.list({ clientKey: client.key });
    assert.ok(audited.some((event) => event.event === 'authorization.automatic'));
  });

  it('shows the consent page to an owner without a grant, and /oauth/authorize always asks', async () => {
    const client = await world.client();
    const bob = await signedIn('bob');
    const { path } = await authenticatePath(client);
    const page = await bob.get(path);
    assert.equal(page.statusCode, 200);
    assert.match(text(page.body), /Photo Printer wants to use your account/);
    // A grant does not skip the authorization page itself (only a remembered consent does).
    await connect(world, bob, client);
    const again = await bob.get(authorizePath(await world.temporary(client)));
    assert.equal(again.statusCode, 200);
    assert.match(text(again.body), /Photo Printer wants to use your account/);
  });

  it('asks again when the request wants more than the grant covers', async () => {
    const client = await world.client();
    const browser = await signedIn();
    const temporary = await world.temporary(client, undefined, 'read');
    const page = await browser.get(authorizePath(temporary));
    await browser.post(
      '/oauth/authorize',
      { oauth_token: temporary.token, decision: 'allow', lifetime: '' },
      page,
    );
    const wider = authorizePath(await world.temporary(client, undefined, 'read write'));
    const reply = await browser.get(wider.replace('/oauth/authorize', '/oauth/authenticate'));
    assert.equal(reply.statusCode, 200);
    assert.match(text(reply.body), /Photo Printer wants to use your account/);
  });

  it('shows the verifier page for oob', async () => {
    const client = await world.client();
    const browser = await signedIn();
    await connect(world, browser, client);
    const path = authorizePath(await world.temporary(client, 'oob'));
    const reply = await browser.get(path.replace('/oauth/authorize', '/oauth/authenticate'));
    assert.equal(reply.statusCode, 200);
    assert.match(text(reply.body), /Your code for Photo Printer/);
  });

  it('force_login=true shows the sign-in form to a signed-in owner, then sends them back', async () => {
    const client = await world.client();
    const browser = await signedIn();
    await connect(world, browser, client);
    const { path } = await authenticatePath(client, '&force_login=true');
    const form = await browser.get(path);
    assert.equal(form.statusCode, 200);
    assert.match(form.body, /<input id="password"/);
    assert.match(form.body, /<input id="username"[^>]*value="alice"/);
    const signed = await browser.post(
      '/signin',
      { username: 'alice', password: 'correct horse battery', next: path },
      form,
    );
    assert.equal(signed.statusCode, 303);
    assert.equal(signed.headers.location, path);
    // Signed in after the request began: the grant now sends the owner straight back.
    const back = await browser.get(path);
    assert.equal(back.statusCode, 303);
    assert.ok(verifierOf(back.headers.location));
  });

  it('force_login with a session from before the request asks again, every time', async () => {
    const client = await world.client();
    const browser = await signedIn();
    await connect(world, browser, client);
    const { path } = await authenticatePath(client, '&force_login=true');
    for (let i = 0; i < 2; i += 1) {
      const form = await browser.get(path);
      assert.equal(form.statusCode, 200);
      assert.match(form.body, /<input id="password"/);
    }
  });

  it('screen_name pre-fills the sign-in form of a signed-out owner', async () => {
    const client = await world.client();
    const { path } = await authenticatePath(client, '&screen_name=alice%22%3E');
    const form = await world.browser().get(path);
    assert.equal(form.statusCode, 200);
    // Escaped, never markup.
    assert.match(form.body, /<input id="username"[^>]*value="alice&quot;&gt;"/);
  });

  it('refuses a forged, consumed or expired oauth_token with a clear page', async () => {
    const client = await world.client();
    const browser = await signedIn();
    const forged = await browser.get('/oauth/authenticate?oauth_token=forged');
    assert.equal(forged.statusCode, 404);
    const missing = await browser.get('/oauth/authenticate');
    assert.equal(missing.statusCode, 400);
    await connect(world, browser, client);
    const temporary = await world.temporary(client);
    const path = authorizePath(temporary).replace('/oauth/authorize', '/oauth/authenticate');
    assert.equal((await browser.get(path)).statusCode, 303);
    // The same request answered already: not approved twice.
    const twice = await browser.get(path);
    assert.equal(twice.statusCode, 410);
  });

  it('shows the consent page when the grant was revoked between two sign-ins', async () => {
    const client = await world.client();
    const browser = await signedIn();
    await connect(world, browser, client);
    const alice = (await world.store.owners.findByUsername('alice'))!;
    await world.provider.connections.revoke(alice.id, client.key);
    const { path } = await authenticatePath(client);
    const page = await browser.get(path);
    assert.equal(page.statusCode, 200);
    assert.match(text(page.body), /Photo Printer wants to use your account/);
  });

  it('sends the verifier only to the callback the client gave, never to a URL in the query', async () => {
    const client = await world.client({ callbacks: ['https://printer.example/callback'] });
    const browser: Browser = await signedIn();
    await connect(world, browser, client);
    const { path } = await authenticatePath(
      client,
      '&oauth_callback=https%3A%2F%2Fevil.example%2F&next=https%3A%2F%2Fevil.example%2F',
    );
    const reply = await browser.get(path);
    assert.equal(reply.statusCode, 303);
    assert.equal(new URL(String(reply.headers.location)).host, 'printer.example');
    // An unregistered callback is refused when the request is made (§2.1).
    await assert.rejects(world.temporary(client, 'https://evil.example/cb'));
  });

  it('is advertised in the endpoint advertisement', async () => {
    const reply = await world.app.inject({ url: '/.well-known/oauth1-provider' });
    assert.equal(reply.statusCode, 200);
    assert.equal(reply.json().authentication_endpoint, 'http://127.0.0.1/oauth/authenticate');
    const openapi = await world.app.inject({ url: '/openapi.json' });
    assert.ok(Object.hasOwn(openapi.json().paths, '/oauth/authenticate'));
  });
});
