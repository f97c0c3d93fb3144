import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { PASSWORD, csrfToken, startWeb, text } from './support.ts';
import type { WebWorld } from './support.ts';

describe('Sign-in and sessions (sessions rotate on sign-in and sign-out)', () => {
  let world: WebWorld;
  before(async () => {
    world = await startWeb();
    await world.owner('alice');
  });
  after(() => world.close());

  it('shows a form with inputs labelled Username and Password and a Sign in button', async () => {
    const page = await world.browser().get('/signin');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<label for="username">Username<\/label>\s*<input id="username"/);
    assert.match(
      page.body,
      /<label for="password">Password<\/label>\s*<input id="password"[^>]*type="password"/,
    );
    assert.match(page.body, /<button type="submit" class="button primary">Sign in<\/button>/);
  });

  it('signs in with the right password and redirects to the next page with 303', async () => {
    const browser = world.browser();
    const reply = await browser.signIn('alice', PASSWORD, '/account/apps');
    assert.equal(reply.statusCode, 303);
    assert.equal(reply.headers.location, '/account/apps');
    assert.equal((await browser.get('/account/apps')).statusCode, 200);
  });

  it('sets the session cookie HttpOnly and SameSite=Lax', async () => {
    const reply = await world.browser().signIn('alice');
    const cookie = [reply.headers['set-cookie']]
      .flat()
      .find((c) => c?.startsWith('latchkey_session='));
    assert.ok(cookie, 'a session cookie is set');
    assert.match(cookie, /; HttpOnly/);
    assert.match(cookie, /; SameSite=Lax/);
    assert.doesNotMatch(cookie, /; Secure/);
  });

  it('keeps only a digest of the 256-bit session id in the store, never the cookie value', async () => {
    const browser = world.browser();
    await browser.signIn('alice');
    const signed = decodeURIComponent(browser.cookies.get('latchkey_session')!);
    const value = signed.slice(0, signed.lastIndexOf('.'));
    assert.equal(Buffer.from(value, 'base64url').length, 32);
    const now = Date.now();
    assert.equal(await world.store.sessions.find(value, now), undefined);
    const digest = createHash('sha256').update(value).digest('base64url');
    const session = await world.store.sessions.find(digest, now);
    assert.equal(session?.ownerId, (await world.provider.owners.get('alice')).id);
  });

  it('refuses a wrong password with a clear message and no session', async () => {
    const browser = world.browser();
    const reply = await browser.signIn('alice', 'wrong password');
    assert.equal(reply.statusCode, 422);
    assert.match(text(reply.body), /The username or password is not right/);
    assert.equal(browser.cookies.has('latchkey_session'), false);
  });

  it('refuses an unknown username with the same message as a wrong password', async () => {
    const reply = await world.browser().signIn('nobody', PASSWORD);
    assert.equal(reply.statusCode, 422);
    assert.match(text(reply.body), /The username or password is not right/);
  });

  it('starts a new session id on sign-in, and the old one stops working', async () => {
    const browser = world.browser();
    await browser.signIn('alice');
    const first = browser.cookies.get('latchkey_session')!;
    const home = await browser.get('/');
    await browser.post('/signin', { username: 'alice', password: PASSWORD, next: '/' }, home);
    const second = browser.cookies.get('latchkey_session')!;
    assert.notEqual(second, first);
    const stale = world.browser();
    stale.cookies.set('latchkey_session', first);
    const page = await stale.get('/account/apps');
    assert.equal(page.statusCode, 303);
    assert.match(String(page.headers.location), /^\/signin\?next=/);
  });

  it('signs out: the session ends on the server and the cookie is cleared', async () => {
    const browser = world.browser();
    await browser.signIn('alice');
    const session = browser.cookies.get('latchkey_session')!;
    const home = await browser.get('/');
    const out = await browser.post('/signout', {}, home);
    assert.equal(out.statusCode, 303);
    assert.equal(browser.cookies.has('latchkey_session'), false);
    const replay = world.browser();
    replay.cookies.set('latchkey_session', session);
    assert.equal((await replay.get('/account/apps')).statusCode, 303);
  });

  it('never redirects off the site after sign-in (next=//elsewhere goes home)', async () => {
    const reply = await world.browser().signIn('alice', PASSWORD, '//evil.example/steal');
    assert.equal(reply.statusCode, 303);
    assert.equal(reply.headers.location, '/');
  });

  // `safeNext` once checked the raw string and returned the URL parser's pathname, which for
  // these spellings starts with `//` (a network-path reference: another site).
  const offSite = [
    '/.//evil.example/x',
    '/..//evil.example/x',
    '/%2e//evil.example/x',
    '/./\t/evil.example/x',
    '/\t/evil.example/x',
    '/%2E%2E//evil.example/x',
  ];

  for (const next of offSite) {
    it(`never redirects off the site once signed in (GET /signin?next=${JSON.stringify(next)})`, async () => {
      const browser = world.browser();
      await browser.signIn('alice');
      const reply = await browser.get(`/signin?next=${encodeURIComponent(next)}`);
      assert.equal(reply.statusCode, 303);
      const location = String(reply.headers.location);
      assert.ok(location.startsWith('/') && !location.startsWith('//'), location);
      assert.equal(new URL(location, 'http://127.0.0.1').host, '127.0.0.1');
    });

    it(`never redirects off the site after signing in (POST next=${JSON.stringify(next)})`, async () => {
      const reply = await world.browser().signIn('alice', PASSWORD, next);
      assert.equal(reply.statusCode, 303);
      const location = String(reply.headers.location);
      assert.ok(location.startsWith('/') && !location.startsWith('//'), location);
      assert.equal(new URL(location, 'http://127.0.0.1').host, '127.0.0.1');
    });
  }

  it('keeps a next path on the site with its query after signing in', async () => {
    const reply = await world
      .browser()
      .signIn('alice', PASSWORD, '/oauth/authorize?oauth_token=abc');
    assert.equal(reply.headers.location, '/oauth/authorize?oauth_token=abc');
  });

  it('refuses a sign-in post without its CSRF token with a 403 page', async () => {
    const browser = world.browser();
    await browser.get('/signin');
    const reply = await browser.post('/signin', {
      username: 'alice',
      password: PASSWORD,
      _csrf: 'forged',
    });
    assert.equal(reply.statusCode, 403);
    assert.match(text(reply.body), /This form can’t be accepted/);
    assert.equal(browser.cookies.has('latchkey_session'), false);
  });

  it('refuses a CSRF token issued before sign-in once signed in (tokens are bound to the session)', async () => {
    const browser = world.browser();
    const anonymous = await browser.get('/signin');
    const before = csrfToken(anonymous.body);
    await browser.signIn('alice');
    const reply = await browser.post('/signout', { _csrf: before });
    assert.equal(reply.statusCode, 403);
  });
});

describe('How long a sign-in lasts (browserSessionLifetimeSeconds)', () => {
  const maxAge = (reply: { headers: Record<string, unknown> }) =>
    /latchkey_session=[^;]+; Max-Age=(\d+);/.exec(
      [reply.headers['set-cookie']].flat().join('\n'),
    )?.[1];

  it('is 12 hours by default', async () => {
    const world = await startWeb();
    try {
      await world.owner('alice');
      assert.equal(maxAge(await world.browser().signIn('alice')), String(12 * 3600));
    } finally {
      await world.close();
    }
  });

  it('is what the app is given, for the cookie and the stored session', async () => {
    let now = Date.now();
    const world = await startWeb({ browserSessionLifetimeSeconds: 600, now: () => now });
    try {
      await world.owner('alice');
      const browser = world.browser();
      assert.equal(maxAge(await browser.signIn('alice')), '600');
      assert.equal((await browser.get('/account/apps')).statusCode, 200);
      now += 601 * 1000;
      const after = await browser.get('/account/apps');
      assert.equal(after.statusCode, 303);
      assert.equal(after.headers.location, '/signin?next=%2Faccount%2Fapps');
    } finally {
      await world.close();
    }
  });
});

describe('Session cookies under TLS (Secure)', () => {
  it('adds Secure and the __Host- prefix when secureCookies is set', async () => {
    const world = await startWeb({ web: { secureCookies: true } });
    try {
      await world.owner('alice');
      const reply = await world.browser().signIn('alice');
      const cookies = [reply.headers['set-cookie']].flat().join('\n');
      assert.match(
        cookies,
        /__Host-latchkey_session=[^;]+; Max-Age=\d+; Path=\/; HttpOnly; Secure; SameSite=Lax/,
      );
    } finally {
      await world.close();
    }
  });
});
