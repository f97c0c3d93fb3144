// "Sign in with" (GET /oauth/authenticate) attacked as the other surfaces are: a flood of forged
// and unknown oauth_token values from one address (each refused with 404, and a good request
// served after), tokens forged from other credentials or replayed after their answer, an
// oversized query, a request abandoned half-sent, and a fast-check hunt over the query
// (force_login, screen_name, oauth_token, anything else) for a 500. The page must never send
// an owner back with a verifier for a request their grant does not cover.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connect as connectSocket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { requestTokenCredentials } from '../../src/client/index.ts';
import type { TokenCredentials } from '../../src/client/index.ts';
import type { Client } from '../../src/store/index.ts';
import { BASE, authorizePath, connect, injectFetch, startWeb, text } from '../web/support.ts';
import type { Browser, WebWorld } from '../web/support.ts';

/** The statuses the page declares (src/web/routes/authorize.ts authenticateSchema). */
const DECLARED = new Set([200, 303, 400, 403, 404, 410, 429]);

/** An error page says what happened in words: never a stack trace or an internal message. */
function assertClearPage(reply: LightMyRequestResponse, status: number, what: string): void {
  assert.equal(
    reply.statusCode,
    status,
    `${what}: ${reply.statusCode} ${reply.body.slice(0, 200)}`,
  );
  assert.match(String(reply.headers['content-type']), /^text\/html/, what);
  assert.doesNotMatch(reply.body, /at .*\.ts:\d+|TypeError|SQLITE/, what);
}

function verifierOf(reply: LightMyRequestResponse): string | null {
  const location = reply.headers.location;
  if (location === undefined) return null;
  return new URL(String(location)).searchParams.get('oauth_verifier');
}

describe('"Sign in with" under attack: GET /oauth/authenticate', () => {
  let world: WebWorld;
  let offsetMs = 0;
  before(async () => {
    world = await startWeb({ now: () => Date.now() + offsetMs });
    await world.owner('alice');
  });
  after(() => world.close());

  const authenticatePath = (temporary: TokenCredentials, query = '') =>
    authorizePath(temporary).replace('/oauth/authorize', '/oauth/authenticate') + query;

  /** A browser at `address`, signed in as alice, whose grant to `client` stands. */
  async function connected(client: Client, address = '127.0.0.1') {
    const browser = world.browser(address);
    await browser.signIn('alice');
    const { token } = await connect(world, browser, client);
    return { browser, token };
  }

  it('refuses a flood of forged and unknown oauth_token values from one address with 404, then serves a good request', async () => {
    const address = '198.51.100.7';
    const client = await world.client();
    const { browser, token } = await connected(client, address);
    const live = await world.temporary(client);
    const forgeries = (index: number): string => {
      switch (index % 8) {
        case 0:
          return randomBytes(16).toString('base64url');
        case 1:
          // The live request's token with its last character changed.
          return `${live.token.slice(0, -1)}${live.token.endsWith('A') ? 'B' : 'A'}`;
        case 2:
          return `${live.token}${index}`;
        case 3:
          return token.token; // the grant's token credential, not a request
        case 4:
          return client.key;
        case 5:
          return ' '.repeat(1 + (index % 5));
        case 6:
          return `${'é'.repeat(index % 40)}\u{1F511}${index}`;
        default:
          return 'x'.repeat(1000 + index);
      }
    };
    const flood = await Promise.all(
      Array.from({ length: 240 }, (_, index) =>
        browser.get(`/oauth/authenticate?oauth_token=${encodeURIComponent(forgeries(index))}`),
      ),
    );
    flood.forEach((reply, index) => assertClearPage(reply, 404, `forgery ${index}`));
    assert.match(text(flood[0]!.body), /We can’t find this request/);
    // Signed out, from the same address: the same answer, and no sign-in form first.
    const stranger = world.browser(address);
    const unknown = await stranger.get(`/oauth/authenticate?oauth_token=${forgeries(0)}`);
    assertClearPage(unknown, 404, 'signed out');
    // The flood took nothing away: the live request is answered at once, as it would have been.
    const good = await browser.get(authenticatePath(live));
    assert.equal(good.statusCode, 303);
    assert.equal(
      new URL(String(good.headers.location)).searchParams.get('oauth_token'),
      live.token,
    );
    assert.ok(verifierOf(good));
  });

  it('refuses a request replayed after it was answered, denied, exchanged or expired', async () => {
    const client = await world.client();
    const { browser } = await connected(client);
    // Answered here at once: the same link again is not approved twice.
    const approved = await world.temporary(client);
    const first = await browser.get(authenticatePath(approved));
    assert.equal(first.statusCode, 303);
    const verifier = verifierOf(first)!;
    assertClearPage(await browser.get(authenticatePath(approved)), 410, 'replayed');
    // Exchanged for token credentials (§2.3): still refused, and no second verifier.
    const exchanged = await requestTokenCredentials(`${BASE}/oauth/access_token`, {
      client: { key: client.key, secret: client.secret },
      temporary: approved,
      verifier,
      fetch: injectFetch(world.app),
    });
    assert.equal(exchanged.status, 200);
    const afterExchange = await browser.get(authenticatePath(approved, '&force_login=false'));
    assertClearPage(afterExchange, 410, 'exchanged');
    assert.equal(verifierOf(afterExchange), null);
    // Denied on the consent page: refused here too, never approved by the standing grant.
    const denied = await world.temporary(client);
    const page = await browser.get(authorizePath(denied));
    await browser.post('/oauth/authorize', { oauth_token: denied.token, decision: 'deny' }, page);
    const replayedDenial = await browser.get(authenticatePath(denied));
    assertClearPage(replayedDenial, 410, 'denied');
    assert.match(text(replayedDenial.body), /This request was denied/);
    // Expired while the owner looked away.
    const late = await world.temporary(client);
    offsetMs = 11 * 60 * 1000;
    try {
      assertClearPage(await browser.get(authenticatePath(late)), 410, 'expired');
    } finally {
      offsetMs = 0;
    }
  });

  it("never sends an owner back for a request their grant does not cover: another app's, a disabled app's", async () => {
    const granted = await world.client({ name: 'Granted App' });
    const other = await world.client({ name: 'Other App' });
    const { browser } = await connected(granted);
    // Another app's request, while the owner's grant to the first one stands: asked.
    const foreign = await browser.get(authenticatePath(await world.temporary(other)));
    assert.equal(foreign.statusCode, 200);
    assert.equal(verifierOf(foreign), null);
    assert.match(text(foreign.body), /Other App wants to use your account/);
    // The granted app disabled by the operator: a clear 403, no verifier.
    const pending = await world.temporary(granted);
    await world.provider.clients.setDisabled(granted.key, true);
    try {
      const disabled = await browser.get(authenticatePath(pending));
      assertClearPage(disabled, 403, 'disabled');
      assert.equal(verifierOf(disabled), null);
    } finally {
      await world.provider.clients.setDisabled(granted.key, false);
    }
  });

  it('answers an oversized query with 431 before reading it, and a long one within limits clearly', async () => {
    await world.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = world.app.server.address() as AddressInfo;
    const url = `http://127.0.0.1:${port}/oauth/authenticate`;
    const huge = await fetch(`${url}?oauth_token=${'x'.repeat(20 * 1024)}`);
    assert.equal(huge.status, 431);
    await huge.body?.cancel();
    // Under the header limit: a long unknown token is a 404 page like any other.
    const long = await fetch(`${url}?oauth_token=${'x'.repeat(12 * 1024)}`);
    assert.equal(long.status, 404);
    assert.match(await long.text(), /We can’t find this request/);
    // A long screen_name is cut to an account name's length on the sign-in form.
    const client = await world.client();
    const temporary = await world.temporary(client);
    const named = await world
      .browser()
      .get(authenticatePath(temporary, `&screen_name=${'a'.repeat(12 * 1024)}`));
    assert.equal(named.statusCode, 200);
    const value = /<input id="username"[^>]*value="([^"]*)"/.exec(named.body)?.[1];
    assert.equal(value, 'a'.repeat(100));
    // Thousands of parameters (past the header limit only through inject): an answer it
    // declares, then the page as before.
    const many = Array.from({ length: 5000 }, (_, i) => `p${i}=1`).join('&');
    const crowded = await world.browser().get(`/oauth/authenticate?${many}&oauth_token=x`);
    assert.ok(DECLARED.has(crowded.statusCode), String(crowded.statusCode));
    const plain = await fetch(`${url}?oauth_token=${temporary.token}`);
    assert.equal(plain.status, 200);
    await plain.body?.cancel();
  });

  it('keeps answering while a request is sent slowly and abandoned', async () => {
    if (!world.app.server.listening) await world.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = world.app.server.address() as AddressInfo;
    const socket = connectSocket(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write('GET /oauth/authenticate?oauth_token=');
    socket.write('abc');
    const client = await world.client();
    const temporary = await world.temporary(client);
    const served = await fetch(`http://127.0.0.1:${port}${authenticatePath(temporary)}`);
    assert.equal(served.status, 200);
    await served.body?.cancel();
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.destroy();
    await closed;
    const again = await fetch(`http://127.0.0.1:${port}${authenticatePath(temporary)}`);
    assert.equal(again.status, 200);
    await again.body?.cancel();
  });

  it('never answers 500, nor a status it does not declare, to any query', async () => {
    const client = await world.client();
    const signedIn: Browser = (await connected(client)).browser;
    const signedOut = world.browser('203.0.113.50');
    // Live requests, some answered by the hunt itself (approved at once): replays come free.
    const tokens = await Promise.all(
      Array.from({ length: 6 }, async () => (await world.temporary(client)).token),
    );
    const token = fc.oneof(
      fc.constantFrom(...tokens),
      fc.string(),
      fc.string({ unit: 'binary' }),
      fc.constantFrom('', ' ', client.key, '%', '\u0000', 'oob'),
    );
    const anything = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constant(''));
    const params = fc.record(
      {
        oauth_token: fc.oneof(token, fc.array(token, { maxLength: 3 })),
        force_login: fc.oneof(fc.constantFrom('true', 'false', 'TRUE', '1', ''), anything),
        screen_name: fc.oneof(fc.constantFrom('alice', 'alice"><script>', ''), anything),
        oauth_callback: anything,
        next: anything,
      },
      { requiredKeys: [] },
    );
    const extra = fc.dictionary(anything, anything, { maxKeys: 3 });
    await fc.assert(
      fc.asyncProperty(params, extra, fc.boolean(), async (known, others, signed) => {
        const query = new URLSearchParams();
        for (const [name, value] of Object.entries(others)) query.append(name, value);
        for (const [name, value] of Object.entries(known)) {
          for (const item of [value].flat()) query.append(name, item);
        }
        const reply = await (signed ? signedIn : signedOut).get(
          `/oauth/authenticate?${query.toString()}`,
        );
        const where = `${reply.statusCode} ${query.toString().slice(0, 200)}`;
        assert.ok(DECLARED.has(reply.statusCode), where);
        if (reply.statusCode === 303) {
          // Only ever to the client's own callback, for the request in the query.
          const location = new URL(String(reply.headers.location));
          assert.equal(location.host, 'printer.example', where);
          assert.ok(tokens.includes(location.searchParams.get('oauth_token') ?? ''), where);
        }
      }),
      { numRuns: 300 },
    );
    // Raw query text as a script may send it: broken percent-encoding, bytes that are not
    // UTF-8, encoded NUL, repeated and empty names.
    const piece = fc.constantFrom(
      ...'%=&+;aofz0189AFG_-.~'.split(''),
      'oauth_token=',
      'force_login=true',
      'screen_name=',
      `oauth_token=${tokens[0]}`,
      '%00',
      '%C3',
      '%80',
      '%FF',
      '%E2%82',
      '%F0%9F%94%91',
      '%ED%A0%80',
      '%zz',
      '%%',
    );
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 30 }), fc.boolean(), async (pieces, signed) => {
        const raw = pieces.join('');
        const reply = await (signed ? signedIn : signedOut).get(`/oauth/authenticate?${raw}`);
        assert.ok(DECLARED.has(reply.statusCode), `${reply.statusCode} ${raw}`);
      }),
      { numRuns: 200 },
    );
    const served = await signedIn.get(authenticatePath(await world.temporary(client)));
    assert.equal(served.statusCode, 303);
  });
});

describe('"Sign in with" under attack, owners signing in at the login app (delegated)', () => {
  const LOGIN_URL = 'https://login.example/login?tenant=acme';
  let world: WebWorld;
  let client: Client;
  before(async () => {
    world = await startWeb({
      policy: { signIn: { perAccountAddress: 3, perAddress: 5, windowSeconds: 600 } },
      web: {
        identity: {
          source: 'delegated',
          loginUrl: LOGIN_URL,
          adminToken: 'an-admin-token-of-at-least-thirty-two-characters',
        },
      },
    });
    client = await world.client();
  });
  after(() => world.close());

  const authenticatePath = (temporary: TokenCredentials, query = '') =>
    authorizePath(temporary).replace('/oauth/authorize', '/oauth/authenticate') + query;

  it('caps the sign-ins a flood of good links starts from one address (429), and serves the others', async () => {
    const from = '192.0.2.77';
    const links = await Promise.all(
      Array.from({ length: 40 }, async () => authenticatePath(await world.temporary(client))),
    );
    const flood = await Promise.all(links.map((link) => world.browser(from).get(link)));
    const statuses = flood.map((reply) => reply.statusCode);
    assert.equal(statuses.filter((status) => status === 303).length, 5);
    assert.equal(statuses.filter((status) => status === 429).length, 35);
    const refused = flood.find((reply) => reply.statusCode === 429)!;
    assertClearPage(refused, 429, 'over the cap');
    assert.ok(Number(refused.headers['retry-after']) >= 1);
    // Forged links from there are still told they are unknown: no challenge is started.
    const forged = await world.browser(from).get('/oauth/authenticate?oauth_token=forged');
    assertClearPage(forged, 404, 'forged');
    const elsewhere = await world.browser('192.0.2.78').get(links[0]!);
    assert.equal(elsewhere.statusCode, 303);
    assert.equal(new URL(String(elsewhere.headers.location)).host, 'login.example');
  });

  it('never answers 500 to any force_login or screen_name sent on to the login app', async () => {
    const tokens = await Promise.all(
      Array.from({ length: 40 }, async () => (await world.temporary(client)).token),
    );
    let address = 0;
    const anything = fc.oneof(fc.string(), fc.string({ unit: 'binary' }));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...tokens),
        fc.oneof(fc.constantFrom('true', 'false', ''), anything),
        fc.oneof(fc.constantFrom('alice', ' ', 'a'.repeat(300)), anything),
        async (token, forceLogin, screenName) => {
          address += 1;
          const browser = world.browser(`198.18.${address >> 8}.${address & 255}`);
          const query = new URLSearchParams({
            oauth_token: token,
            force_login: forceLogin,
            screen_name: screenName,
          });
          const reply = await browser.get(`/oauth/authenticate?${query.toString()}`);
          const where = `${reply.statusCode} ${query.toString().slice(0, 200)}`;
          assert.equal(reply.statusCode, 303, where);
          const location = new URL(String(reply.headers.location));
          assert.equal(location.host, 'login.example', where);
          assert.equal(
            location.searchParams.get('force_login'),
            forceLogin === 'true' ? 'true' : null,
          );
          const hint = location.searchParams.get('login_hint');
          assert.ok(hint === null || (hint.length > 0 && hint.length <= 100), where);
        },
      ),
      { numRuns: 200 },
    );
  });
});
