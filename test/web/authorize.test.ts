import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  processTokenCredentialsResponse,
  requestTokenCredentials,
} from '../../src/client/index.ts';
import { authorizePath, BASE, injectFetch, startWeb, text } from './support.ts';
import type { WebWorld } from './support.ts';

describe('RFC 5849 §2.2 resource owner authorization: the consent page', () => {
  let world: WebWorld;
  before(async () => {
    world = await startWeb();
    await world.owner('alice');
  });
  after(() => world.close());

  async function signedIn() {
    const browser = world.browser();
    await browser.signIn('alice');
    return browser;
  }

  it('asks a signed-out owner to sign in first, naming the app, and comes back to the request', async () => {
    const client = await world.client();
    const path = authorizePath(await world.temporary(client));
    const browser = world.browser();
    const page = await browser.get(path);
    assert.equal(page.statusCode, 200);
    assert.match(text(page.body), /Photo Printer is asking to use your account/);
    assert.match(page.body, /<label for="username">Username<\/label>/);
    assert.match(page.body, /<input id="username"[^>]*value=""/);
    const reply = await browser.post(
      '/signin',
      { username: 'alice', password: 'correct horse battery', next: path },
      page,
    );
    assert.equal(reply.headers.location, path);
    assert.match(text((await browser.get(path)).body), /Photo Printer wants to use your account/);
  });

  it('shows the client name, description, website and requested scope in plain words', async () => {
    const client = await world.client({
      name: 'Album Sync',
      description: 'Keeps your albums in step.',
      website: 'https://albums.example/about',
    });
    const page = await (
      await signedIn()
    ).get(authorizePath(await world.temporary(client, 'oob', 'read')));
    const words = text(page.body);
    assert.match(words, /Album Sync wants to use your account/);
    assert.match(words, /Keeps your albums in step\./);
    assert.match(page.body, /<a href="https:\/\/albums\.example\/about"[^>]*>albums\.example<\/a>/);
    assert.match(words, /See your profile and read your data/);
    assert.doesNotMatch(words, /Create, change and delete your data/);
  });

  it('names where Allow and Deny both send the owner: the callback host', async () => {
    const client = await world.client({ callbacks: ['https://printer.example/callback'] });
    const page = await (
      await signedIn()
    ).get(authorizePath(await world.temporary(client, 'https://printer.example/callback')));
    const words = text(page.body);
    assert.match(words, /Whether you allow or deny, you will then be sent to printer\.example ?\./);
    assert.doesNotMatch(words, /did not register/);
  });

  it('warns when the callback was not registered by the app, naming its host', async () => {
    const client = await world.client();
    const page = await (
      await signedIn()
    ).get(authorizePath(await world.temporary(client, 'https://elsewhere.example:8443/cb')));
    const words = text(page.body);
    assert.match(words, /you will then be sent to elsewhere\.example:8443 ?\./);
    assert.match(words, /did not register elsewhere\.example:8443 with this server in advance/);
  });

  it('names no callback host for oob (the page shows a code instead)', async () => {
    const client = await world.client();
    const page = await (await signedIn()).get(authorizePath(await world.temporary(client, 'oob')));
    assert.doesNotMatch(text(page.body), /you will then be sent to/);
  });

  it('marks an unverified client "Not verified by this server" and warns', async () => {
    const client = await world.client();
    const page = await (await signedIn()).get(authorizePath(await world.temporary(client)));
    assert.match(text(page.body), /Not verified by this server/);
    assert.match(text(page.body), /has not checked who runs this app/);
  });

  it('marks a client an operator verified "Verified by this server"', async () => {
    const client = await world.client();
    await world.provider.clients.update(client.key, { verified: true });
    const page = await (await signedIn()).get(authorizePath(await world.temporary(client)));
    assert.match(text(page.body), /Verified by this server/);
    assert.doesNotMatch(text(page.body), /Not verified/);
  });

  it('offers Allow and Deny buttons and a choice of how long access lasts', async () => {
    const page = await (
      await signedIn()
    ).get(authorizePath(await world.temporary(await world.client())));
    assert.match(
      page.body,
      /<button type="submit" name="decision" value="allow"[^>]*>Allow<\/button>/,
    );
    assert.match(
      page.body,
      /<button type="submit" name="decision" value="deny"[^>]*>Deny<\/button>/,
    );
    assert.match(page.body, /<label for="lifetime">Access lasts<\/label>/);
    assert.match(page.body, /<option value="">Until you revoke it<\/option>/);
    assert.match(page.body, /<option value="3600">1 hour<\/option>/);
  });

  it('escapes what a client registered, so its name cannot inject markup', async () => {
    const client = await world.client({
      name: '<img src=x onerror=alert(1)>',
      description: '"><script>alert(2)</script>',
    });
    const page = await (await signedIn()).get(authorizePath(await world.temporary(client)));
    assert.doesNotMatch(page.body, /<img src=x/);
    assert.doesNotMatch(page.body, /<script>alert/);
    assert.match(page.body, /&lt;img src=x onerror=alert\(1\)&gt;/);
  });

  it('Allow redirects (303) to the callback with oauth_token and oauth_verifier after its query', async () => {
    const client = await world.client();
    const temporary = await world.temporary(client, 'https://printer.example/done?from=latchkey');
    const browser = await signedIn();
    const page = await browser.get(authorizePath(temporary));
    const reply = await browser.post(
      '/oauth/authorize',
      { oauth_token: temporary.token, decision: 'allow', lifetime: '' },
      page,
    );
    assert.equal(reply.statusCode, 303);
    const location = new URL(String(reply.headers.location));
    assert.equal(location.origin + location.pathname, 'https://printer.example/done');
    assert.deepEqual([...location.searchParams.keys()], ['from', 'oauth_token', 'oauth_verifier']);
    assert.equal(location.searchParams.get('oauth_token'), temporary.token);
  });

  it('gives the token the shorter lifetime the owner chose', async () => {
    const client = await world.client();
    const temporary = await world.temporary(client);
    const browser = await signedIn();
    const page = await browser.get(authorizePath(temporary));
    const reply = await browser.post(
      '/oauth/authorize',
      { oauth_token: temporary.token, decision: 'allow', lifetime: '3600' },
      page,
    );
    const verifier = new URL(String(reply.headers.location)).searchParams.get('oauth_verifier');
    // The app exchanges (§2.3): the token it gets lasts what the owner chose.
    const issued = await processTokenCredentialsResponse(
      await requestTokenCredentials(`${BASE}/oauth/access_token`, {
        client: { key: client.key, secret: client.secret },
        temporary,
        verifier: verifier ?? '',
        fetch: injectFetch(world.app),
      }),
    );
    const token = await world.store.tokenCredentials.find(issued.token);
    assert.ok(token !== undefined, 'the token credential was issued');
    assert.equal(token.expiresAt, token.issuedAt + 3600 * 1000);
  });

  it('refuses a lifetime the page did not offer, and changes nothing', async () => {
    const client = await world.client();
    const temporary = await world.temporary(client);
    const browser = await signedIn();
    const page = await browser.get(authorizePath(temporary));
    const reply = await browser.post(
      '/oauth/authorize',
      { oauth_token: temporary.token, decision: 'allow', lifetime: '99999999999' },
      page,
    );
    assert.equal(reply.statusCode, 400);
    assert.equal((await world.store.temporaryCredentials.find(temporary.token))?.state, 'issued');
  });

  it('for oob, Allow shows the verifier and tells the owner to give it to the app', async () => {
    const client = await world.client();
    const temporary = await world.temporary(client, 'oob');
    const browser = await signedIn();
    const page = await browser.get(authorizePath(temporary));
    const reply = await browser.post(
      '/oauth/authorize',
      { oauth_token: temporary.token, decision: 'allow' },
      page,
    );
    assert.equal(reply.statusCode, 200);
    const stored = await world.store.temporaryCredentials.find(temporary.token);
    assert.match(text(reply.body), /Give this code to Photo Printer/);
    // The store keeps the verifier's digest only: the code shown is the one it digests.
    const shown = /<output class="verifier-code"[^>]*>([^<]+)<\/output>/.exec(reply.body)?.[1];
    assert.ok(shown !== undefined);
    assert.equal(stored!.verifier, world.store.secrets.verifierDigest(shown));
    assert.notEqual(stored!.verifier, shown);
  });

  it('for oob on a constrained device, shows a short grouped code meant for typing', async () => {
    const client = await world.client({ name: 'Living Room TV', constrainedDevice: true });
    const temporary = await world.temporary(client, 'oob');
    const browser = await signedIn();
    const page = await browser.get(authorizePath(temporary));
    const reply = await browser.post(
      '/oauth/authorize',
      { oauth_token: temporary.token, decision: 'allow' },
      page,
    );
    const code = /<output class="verifier-code"[^>]*>([^<]+)<\/output>/.exec(reply.body)?.[1];
    assert.match(code ?? '', /^[ABCDEFGHJKMNPQRTWXY346789]{4}-[ABCDEFGHJKMNPQRTWXY346789]{4}$/);
    assert.match(text(reply.body), /Type this code on your device/);
  });

  it('Deny redirects (303) to the callback with oauth_problem=user_refused', async () => {
    const temporary = await world.temporary(await world.client());
    const browser = await signedIn();
    const page = await browser.get(authorizePath(temporary));
    const reply = await browser.post(
      '/oauth/authorize',
      { oauth_token: temporary.token, decision: 'deny' },
      page,
    );
    assert.equal(reply.statusCode, 303);
    const location = new URL(String(reply.headers.location));
    assert.equal(location.searchParams.get('oauth_problem'), 'user_refused');
    assert.equal(location.searchParams.has('oauth_verifier'), false);
  });

  it('for oob, Deny shows a page saying the app got no access', async () => {
    const temporary = await world.temporary(await world.client(), 'oob');
    const browser = await signedIn();
    const page = await browser.get(authorizePath(temporary));
    const reply = await browser.post(
      '/oauth/authorize',
      { oauth_token: temporary.token, decision: 'deny' },
      page,
    );
    assert.equal(reply.statusCode, 200);
    assert.match(text(reply.body), /Photo Printer was not given access/);
  });

  it('refuses an answer without a valid CSRF token (403 page) and leaves the request unanswered', async () => {
    const temporary = await world.temporary(await world.client());
    const browser = await signedIn();
    await browser.get(authorizePath(temporary));
    const reply = await browser.post('/oauth/authorize', {
      oauth_token: temporary.token,
      decision: 'allow',
      _csrf: 'x',
    });
    assert.equal(reply.statusCode, 403);
    assert.match(text(reply.body), /This form can’t be accepted/);
    assert.equal((await world.store.temporaryCredentials.find(temporary.token))?.state, 'issued');
  });
});

describe('RFC 5849 §2.2 authorization: a clear page for every request that cannot be used', () => {
  let world: WebWorld;
  let offsetMs = 0;
  before(async () => {
    world = await startWeb({ now: () => Date.now() + offsetMs });
    await world.owner('alice');
  });
  after(() => world.close());

  async function answer(path: string, decision: 'allow' | 'deny') {
    const browser = world.browser();
    await browser.signIn('alice');
    const page = await browser.get(path);
    const token = new URL(path, 'http://x').searchParams.get('oauth_token')!;
    return browser.post('/oauth/authorize', { oauth_token: token, decision }, page);
  }

  it('answers a link without oauth_token with 400 and says the link is incomplete', async () => {
    const page = await world.browser().get('/oauth/authorize');
    assert.equal(page.statusCode, 400);
    assert.match(text(page.body), /This link is incomplete/);
  });

  it('answers an unknown oauth_token with 404 and what to do, never a stack trace', async () => {
    const page = await world.browser().get('/oauth/authorize?oauth_token=no-such-token');
    assert.equal(page.statusCode, 404);
    assert.match(text(page.body), /We can’t find this request.*What you can do.*connect again/);
    assert.doesNotMatch(page.body, /at .*\.ts:\d+/);
  });

  it('answers an expired request with 410', async () => {
    const path = authorizePath(await world.temporary(await world.client()));
    offsetMs = 11 * 60 * 1000;
    try {
      const page = await world.browser().get(path);
      assert.equal(page.statusCode, 410);
      assert.match(text(page.body), /This request has expired/);
    } finally {
      offsetMs = 0;
    }
  });

  it('answers a request already allowed with 410', async () => {
    const path = authorizePath(await world.temporary(await world.client()));
    await answer(path, 'allow');
    const page = await world.browser().get(path);
    assert.equal(page.statusCode, 410);
    assert.match(text(page.body), /This request was already answered/);
  });

  it('answers a request already denied with 410', async () => {
    const path = authorizePath(await world.temporary(await world.client()));
    await answer(path, 'deny');
    const page = await world.browser().get(path);
    assert.equal(page.statusCode, 410);
    assert.match(text(page.body), /This request was denied/);
  });

  it('refuses Allow on a consent page whose request was answered and consumed meanwhile (410)', async () => {
    const client = await world.client();
    const temporary = await world.temporary(client);
    const path = authorizePath(temporary);
    const browser = world.browser();
    await browser.signIn('alice');
    const page = await browser.get(path);
    assert.equal(page.statusCode, 200);
    // Meanwhile, another tab allowed it and the app exchanged the verifier (§2.3).
    const first = await answer(path, 'allow');
    const verifier = new URL(String(first.headers.location)).searchParams.get('oauth_verifier');
    await processTokenCredentialsResponse(
      await requestTokenCredentials(`${BASE}/oauth/access_token`, {
        client: { key: client.key, secret: client.secret },
        temporary,
        verifier: verifier ?? '',
        fetch: injectFetch(world.app),
      }),
    );
    const late = await browser.post(
      '/oauth/authorize',
      { oauth_token: temporary.token, decision: 'allow' },
      page,
    );
    assert.equal(late.statusCode, 410);
    assert.equal(late.headers.location, undefined);
    assert.match(text(late.body), /This request was already answered/);
  });

  it('answers a request whose app was deleted with 404 and says the app may have been deleted', async () => {
    const client = await world.client();
    const path = authorizePath(await world.temporary(client));
    await world.provider.clients.remove(client.key);
    const page = await world.browser().get(path);
    assert.equal(page.statusCode, 404);
    assert.match(text(page.body), /the app that asked may have been deleted/);
  });

  it('sends an answer posted after the session ended back to sign-in', async () => {
    const temporary = await world.temporary(await world.client());
    const browser = world.browser();
    const page = await browser.get(authorizePath(temporary));
    const reply = await browser.post(
      '/oauth/authorize',
      { oauth_token: temporary.token, decision: 'allow' },
      page,
    );
    assert.equal(reply.statusCode, 303);
    assert.match(
      String(reply.headers.location),
      /^\/signin\?next=%2Foauth%2Fauthorize%3Foauth_token%3D/,
    );
  });
});
