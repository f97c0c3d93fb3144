import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BASE, connect, csrfToken, startWeb, text } from './support.ts';
import type { WebWorld } from './support.ts';

describe('Connected apps (RFC 5849 §2.3 "the owner should be able to revoke")', () => {
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

  it('sends a signed-out visitor to sign in', async () => {
    const reply = await world.browser().get('/account/apps');
    assert.equal(reply.statusCode, 303);
    assert.equal(reply.headers.location, '/signin?next=%2Faccount%2Fapps');
  });

  it('lists each app the owner allowed with its scope, when allowed, last use and lifetime', async () => {
    const browser = await signedIn();
    const client = await world.client({ name: 'Calendar Bridge' });
    await connect(world, browser, client, '86400');
    const words = text((await browser.get('/account/apps')).body);
    assert.match(words, /Calendar Bridge/);
    assert.match(
      words,
      /Can See your profile and read your data; Create, change and delete your data/,
    );
    assert.match(words, /Allowed \d{1,2} \w{3} \d{4}, \d{2}:\d{2} UTC/);
    assert.match(words, /Last used Not used yet/);
    assert.match(words, /Lasts \d{1,2} \w{3} \d{4}, \d{2}:\d{2} UTC/);
  });

  it('shows when the app last used its access', async () => {
    const browser = await signedIn();
    const client = await world.client({ name: 'Last Use Checker' });
    const { api } = await connect(world, browser, client);
    assert.equal((await api(`${BASE}/api/me`)).status, 200);
    const page = text((await browser.get('/account/apps')).body);
    assert.match(page, /Last Use Checker .*Last used \d{1,2} \w{3} \d{4}/);
  });

  it('does not show one owner the apps another owner allowed', async () => {
    const client = await world.client({ name: 'Only For Alice' });
    await connect(world, await signedIn('alice'), client);
    const words = text((await (await signedIn('bob')).get('/account/apps')).body);
    assert.doesNotMatch(words, /Only For Alice/);
    assert.match(words, /No app has access to your account/);
  });

  it('Revoke ends access at once: the page says so and the client’s next request gets 401 token_revoked', async () => {
    const browser = await signedIn();
    const client = await world.client({ name: 'Revocable' });
    const { api } = await connect(world, browser, client);
    assert.equal((await api(`${BASE}/api/me`)).status, 200);
    const page = await browser.get('/account/apps');
    const reply = await browser.post('/account/apps/revoke', { client_key: client.key }, page);
    assert.equal(reply.statusCode, 303);
    const after = text((await browser.get(String(reply.headers.location))).body);
    assert.match(
      after,
      /Revocable can no longer use your account\. Its access was revoked now: the very next request it makes is refused/,
    );
    const refused = await api(`${BASE}/api/me`);
    assert.equal(refused.status, 401);
    assert.match(await refused.text(), /oauth_problem=token_revoked/);
  });

  it('refuses a revoke without a valid CSRF token, and the access stays', async () => {
    const browser = await signedIn();
    const client = await world.client({ name: 'Still Connected' });
    const { api } = await connect(world, browser, client);
    const reply = await browser.post('/account/apps/revoke', {
      client_key: client.key,
      _csrf: 'forged',
    });
    assert.equal(reply.statusCode, 403);
    assert.equal((await api(`${BASE}/api/me`)).status, 200);
  });

  it('cannot revoke another owner’s access (the revoke acts on the signed-in owner only)', async () => {
    const client = await world.client({ name: 'Bob Keeps This' });
    const { api } = await connect(world, await signedIn('bob'), client);
    const alice = await signedIn('alice');
    const page = await alice.get('/account/apps');
    await alice.post('/account/apps/revoke', {
      client_key: client.key,
      _csrf: csrfToken(page.body),
    });
    assert.equal((await api(`${BASE}/api/me`)).status, 200);
  });
});

describe('Connected apps and the session extension', () => {
  let world: WebWorld;
  let offsetMs = 0;
  before(async () => {
    world = await startWeb({ now: () => Date.now() + offsetMs });
    await world.owner('carol');
  });
  after(() => world.close());

  it('lists an app whose token expired while its session can renew it, and Revoke ends that session', async () => {
    const browser = world.browser();
    await browser.signIn('carol');
    const client = await world.client({ name: 'Session Keeper', sessionExtension: true });
    const { token } = await connect(world, browser, client);
    offsetMs += 2 * 3600 * 1000; // the token's hour is over; the session is not
    const stored = await world.provider.tokens.find(token.token);
    assert.ok(stored?.expiresAt !== null && stored!.expiresAt! < Date.now() + offsetMs);
    const page = await browser.get('/account/apps');
    assert.match(text(page.body), /Session Keeper/);
    const reply = await browser.post('/account/apps/revoke', { client_key: client.key }, page);
    assert.equal(reply.statusCode, 303);
    // Revoked, so its session handle renews nothing any more (provider/flow/session-extension.ts).
    assert.notEqual((await world.provider.tokens.find(token.token))?.revokedAt ?? null, null);
  });
});
