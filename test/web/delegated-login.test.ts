// The login challenge admin API and the delegated sign-in (docs/identity.md), through the
// real app with app.inject: what the team's login app may do, and every refusal, with the
// status that says why. Expiry is tested with the provider's clock, not by waiting.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { LOGIN_CHALLENGE_LIFETIME_SECONDS } from '../../src/provider/index.ts';
import type { Client } from '../../src/store/index.ts';
import { authorizePath, startWeb, text } from './support.ts';
import type { Browser, WebWorld } from './support.ts';

const ADMIN_TOKEN = 'an-admin-token-of-at-least-thirty-two-characters';
const LOGIN_URL = 'https://login.example/login?tenant=acme';

describe('Delegated sign-in: the login challenge and POST /admin/login/accept|reject', () => {
  let world: WebWorld;
  let client: Client;
  let clock = Date.now();
  before(async () => {
    world = await startWeb({
      now: () => clock,
      web: { identity: { source: 'delegated', loginUrl: LOGIN_URL, adminToken: ADMIN_TOKEN } },
    });
    client = await world.client();
  });
  after(() => world?.close());

  function admin(path: string, body: unknown, token = ADMIN_TOKEN, type = 'application/json') {
    return world.app.inject({
      method: 'POST',
      url: path,
      headers: {
        host: '127.0.0.1',
        'content-type': type,
        ...(token === '' ? {} : { authorization: `Bearer ${token}` }),
      },
      payload: typeof body === 'string' ? body : JSON.stringify(body),
    });
  }

  /** A browser at the authorization page, sent to the login app: its challenge. */
  async function challengeFor(browser: Browser): Promise<{ challenge: string; token: string }> {
    const temporary = await world.temporary(client);
    const page = await browser.get(authorizePath(temporary));
    assert.equal(page.statusCode, 303);
    const location = new URL(String(page.headers.location));
    assert.equal(`${location.origin}${location.pathname}`, 'https://login.example/login');
    assert.equal(location.searchParams.get('tenant'), 'acme');
    return { challenge: location.searchParams.get('login_challenge')!, token: temporary.token };
  }

  function redirectOf(response: LightMyRequestResponse): string {
    const to = (response.json() as { redirect_to: string }).redirect_to;
    const url = new URL(to);
    return url.pathname + url.search;
  }

  it('sends a signed-out owner to the login app with a fresh unguessable challenge each time', async () => {
    const browser = world.browser();
    const first = await challengeFor(browser);
    const second = await challengeFor(browser);
    assert.match(first.challenge, /^[A-Za-z0-9_-]{43}$/);
    assert.notEqual(first.challenge, second.challenge);
  });

  it('accepts once: the browser that started comes back signed in to the consent page', async () => {
    const browser = world.browser();
    const { challenge, token } = await challengeFor(browser);
    const accepted = await admin('/admin/login/accept', {
      login_challenge: challenge,
      subject: 'user-1815',
      name: 'Ada Lovelace',
    });
    assert.equal(accepted.statusCode, 200);
    assert.equal(accepted.headers['cache-control'], 'no-store');
    const back = await browser.get(redirectOf(accepted));
    assert.equal(back.statusCode, 303);
    assert.equal(
      back.headers.location,
      `/oauth/authorize?oauth_token=${encodeURIComponent(token)}`,
    );
    const consent = await browser.get(String(back.headers.location));
    assert.match(text(consent.body), /Photo Printer wants to use your account/);
    const again = await admin('/admin/login/accept', {
      login_challenge: challenge,
      subject: 'user-1815',
    });
    assert.equal(again.statusCode, 409);
    assert.equal(again.json().error, 'conflict');
  });

  it('records the admin API accept and the sign-in it led to in the audit trail', async () => {
    const stored: string[] = [];
    const both = new Promise<void>((resolve) => {
      const listener = (entry: { event: string }) => {
        stored.push(entry.event);
        if (stored.includes('admin.login-accepted') && stored.includes('owner.signed-in')) {
          world.provider.events.off('audit', listener);
          resolve();
        }
      };
      world.provider.events.on('audit', listener);
    });
    const browser = world.browser();
    const { challenge } = await challengeFor(browser);
    const accepted = await admin('/admin/login/accept', {
      login_challenge: challenge,
      subject: 'user-audit',
      name: 'Audited Person',
    });
    await browser.get(redirectOf(accepted));
    await both;
    const events = await world.provider.audit.list({});
    const acceptance = events.find((e) => e.event === 'admin.login-accepted');
    assert.deepEqual(
      [acceptance?.actor, acceptance?.address, JSON.parse(acceptance?.detail ?? '{}')],
      ['admin', '127.0.0.1', { subject: 'user-audit' }],
    );
    const signIn = events.find((e) => e.event === 'owner.signed-in');
    assert.deepEqual(
      [signIn?.actor, JSON.parse(signIn?.detail ?? '{}')],
      ['owner', { source: 'delegated' }],
    );
    assert.equal(JSON.stringify(events).includes(ADMIN_TOKEN), false);
  });

  it('refuses a wrong, missing or malformed admin token with 401 and a Bearer challenge, in constant time', async () => {
    const { challenge } = await challengeFor(world.browser());
    for (const token of ['', 'wrong', `${ADMIN_TOKEN}x`, ADMIN_TOKEN.slice(0, -1)]) {
      const refused = await admin(
        '/admin/login/accept',
        { login_challenge: challenge, subject: 's' },
        token,
      );
      assert.equal(refused.statusCode, 401, token);
      assert.equal(refused.json().error, 'invalid_token');
      assert.match(String(refused.headers['www-authenticate']), /^Bearer /);
    }
    // Nothing was accepted meanwhile.
    const accepted = await admin('/admin/login/accept', {
      login_challenge: challenge,
      subject: 's',
    });
    assert.equal(accepted.statusCode, 200);
  });

  it('refuses an unknown challenge with 404, an unreadable body with 400, a body not JSON with 415', async () => {
    const unknown = await admin('/admin/login/accept', {
      login_challenge: 'made-up',
      subject: 's',
    });
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().error, 'not_found');
    const { challenge } = await challengeFor(world.browser());
    for (const body of [
      '{not json',
      [],
      { subject: 's' },
      { login_challenge: challenge },
      { login_challenge: challenge, subject: 'has spaces' },
      { login_challenge: challenge, subject: 'x'.repeat(256) },
      { login_challenge: challenge, subject: 's', name: 42 },
    ]) {
      const refused = await admin('/admin/login/accept', body);
      assert.equal(refused.statusCode, 400, JSON.stringify(body));
      assert.equal(refused.json().error, 'invalid_request');
    }
    const form = await admin(
      '/admin/login/accept',
      `login_challenge=${challenge}&subject=s`,
      ADMIN_TOKEN,
      'application/x-www-form-urlencoded',
    );
    assert.equal(form.statusCode, 415);
  });

  it('refuses an expired challenge with 410', async () => {
    const { challenge } = await challengeFor(world.browser());
    clock += LOGIN_CHALLENGE_LIFETIME_SECONDS * 1000;
    try {
      const expired = await admin('/admin/login/accept', {
        login_challenge: challenge,
        subject: 's',
      });
      assert.equal(expired.statusCode, 410);
      assert.equal(expired.json().error, 'gone');
    } finally {
      clock -= LOGIN_CHALLENGE_LIFETIME_SECONDS * 1000;
    }
  });

  it('rejects once: the authorization request is denied and redirect_to is the client’s callback with user_refused', async () => {
    const { challenge, token } = await challengeFor(world.browser());
    const rejected = await admin('/admin/login/reject', { login_challenge: challenge });
    assert.equal(rejected.statusCode, 200);
    const to = new URL(rejected.json().redirect_to);
    assert.equal(to.origin + to.pathname, 'https://printer.example/callback');
    assert.equal(to.searchParams.get('oauth_problem'), 'user_refused');
    assert.equal(to.searchParams.get('oauth_token'), token);
    assert.equal(
      (await admin('/admin/login/reject', { login_challenge: challenge })).statusCode,
      409,
    );
    assert.equal(
      (await admin('/admin/login/accept', { login_challenge: challenge, subject: 's' })).statusCode,
      409,
    );
  });

  it('refuses a login verifier brought back by another browser (403), or twice (409), or made up (400)', async () => {
    const browser = world.browser();
    const { challenge } = await challengeFor(browser);
    const accepted = await admin('/admin/login/accept', {
      login_challenge: challenge,
      subject: 'user-7',
    });
    const back = redirectOf(accepted);
    const other = await world.browser().get(back);
    assert.equal(other.statusCode, 403);
    assert.match(text(other.body), /started in another browser/);
    assert.doesNotMatch(String(other.headers['set-cookie']), /latchkey_session/);
    assert.equal((await browser.get(back)).statusCode, 303);
    assert.equal((await browser.get(back)).statusCode, 409);
    assert.equal(
      (await browser.get('/signin/delegated/callback?login_verifier=made-up')).statusCode,
      400,
    );
    assert.equal((await browser.get('/signin/delegated/callback')).statusCode, 400);
  });

  it('offers no password sign-in form: POST /signin is not a route', async () => {
    const response = await world.app.inject({ method: 'POST', url: '/signin', payload: {} });
    assert.equal(response.statusCode, 404);
  });

  it('creates the owner on first sign-in without a password, and keeps its name current', async () => {
    for (const name of ['Grace', 'Grace Hopper']) {
      const browser = world.browser();
      const { challenge } = await challengeFor(browser);
      const accepted = await admin('/admin/login/accept', {
        login_challenge: challenge,
        subject: 'user-1906',
        name,
      });
      assert.equal((await browser.get(redirectOf(accepted))).statusCode, 303);
    }
    const owner = await world.provider.owners.findByIdentity({
      source: 'delegated',
      subject: 'user-1906',
    });
    assert.equal(owner?.name, 'Grace Hopper');
    assert.equal(owner?.passwordHash, null);
    assert.equal(owner?.username, null);
  });
});

describe('Embedders: approving for a subject of their own user base', () => {
  let world: WebWorld;
  before(async () => {
    world = await startWeb();
  });
  after(() => world?.close());

  it('approveFor creates the owner by subject and approves; the token’s owner is that subject', async () => {
    const client = await world.client();
    const temporary = await world.temporary(client);
    const approval = await world.provider.authorization.approveFor(temporary.token, {
      subject: 'customer-42',
      name: 'Ada',
    });
    assert.match(approval.redirect ?? '', /oauth_verifier=/);
    const owner = await world.provider.owners.findByIdentity({
      source: 'delegated',
      subject: 'customer-42',
    });
    const stored = await world.store.temporaryCredentials.find(temporary.token);
    assert.equal(stored?.ownerId, owner?.id);
  });

  it('approveFor on a dead request creates no owner', async () => {
    await assert.rejects(
      world.provider.authorization.approveFor('made-up', { subject: 'customer-43' }),
      (error: Error & { problem?: string }) => error.problem === 'token_rejected',
    );
    assert.equal(
      await world.provider.owners.findByIdentity({ source: 'delegated', subject: 'customer-43' }),
      undefined,
    );
  });
});
