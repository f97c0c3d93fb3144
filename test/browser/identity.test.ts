// Owners are the API's own users (docs/identity.md), in a real browser, for each identity
// source: Latchkey's own accounts, a real OpenID Connect provider (node-oidc-provider with its
// own login form) and the example login app (examples/delegated-login/). For each, the client
// gets temporary credentials, the owner signs in and allows, the client exchanges the
// verifier, and /api/me and the gateway name the owner by its subject; the owner revokes the
// app on Connected apps; Deny works. Then what each source must refuse.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startLoginApp } from '../../examples/delegated-login/app.ts';
import type { LoginApp } from '../../examples/delegated-login/app.ts';
import type { IdentityOptions } from '../../src/provider/index.ts';
import type { Client } from '../../src/store/index.ts';
import { startEchoUpstream } from '../gateway/support.ts';
import type { EchoUpstream } from '../gateway/support.ts';
import { startIdentityProvider } from './identity-provider.ts';
import type { TestIdentityProvider } from './identity-provider.ts';
import {
  FlowClient,
  PASSWORD,
  assertEveryDocumentProtected,
  needsChromium,
  screenshot,
  signIn,
  startBrowserWorld,
} from './support.ts';
import type { BrowserWorld } from './support.ts';

const ADMIN_TOKEN = 'an-admin-token-of-at-least-thirty-two-characters';

interface Me {
  readonly owner: { readonly subject: string; readonly name: string; readonly source: string };
}

/** One source's world: Latchkey (with a gateway to an echo upstream) and its identity source. */
interface SourceWorld {
  readonly world: BrowserWorld;
  readonly upstream: EchoUpstream;
  readonly printer: Client;
  client(): FlowClient;
}

async function startSourceWorld(identity: () => IdentityOptions): Promise<SourceWorld> {
  const upstream = await startEchoUpstream();
  const world = await startBrowserWorld({
    app: {
      identity: identity(),
      gateway: { upstream: upstream.url, rules: [{ path: '/photos/*', access: 'token' }] },
    },
  });
  const printer = await world.server.provider.clients.register({
    name: 'Photo Printer',
    description: 'Prints the photos you choose from your albums, and nothing else.',
  });
  return {
    world,
    upstream,
    printer,
    client: () => new FlowClient(world.server, { key: printer.key, secret: printer.secret }),
  };
}

/**
 * The part every source shares once the owner is on the consent page: Allow, the exchange,
 * /api/me and the gateway, then Revoke on Connected apps.
 */
async function allowAndCheck(
  source: SourceWorld,
  page: Page,
  client: FlowClient,
  expected: { readonly subject: string; readonly name: string; readonly source: string },
): Promise<void> {
  const { world } = source;
  await page.getByRole('heading', { name: 'Photo Printer wants to use your account' }).waitFor();
  await page.getByRole('button', { name: 'Allow' }).click();
  await page.getByRole('heading', { name: 'Back in the client app' }).waitFor();
  const arrived = world.callback.received.at(-1)!;
  const api = await client.finish(arrived.searchParams.get('oauth_verifier')!);
  const me = (await (await api(`${world.server.url}/api/me`)).json()) as Me;
  assert.equal(me.owner.subject, expected.subject);
  assert.equal(me.owner.name, expected.name);
  assert.equal(me.owner.source, expected.source);
  assert.equal((await api(`${world.server.url}/photos/1`)).status, 200);
  const headers = source.upstream.received.at(-1)!.headers;
  assert.equal(headers['x-oauth-owner'], expected.subject);
  assert.equal(decodeURIComponent(String(headers['x-oauth-owner-name'])), expected.name);

  await page.goto(`${world.server.url}/account/apps`);
  await page.getByRole('link', { name: 'Revoke access for Photo Printer' }).click();
  await page.getByRole('button', { name: 'Revoke access' }).click();
  await page.getByText('Photo Printer can no longer use your account').waitFor();
  const refused = await api(`${world.server.url}/api/me`);
  assert.equal(refused.status, 401);
  assert.match(await refused.text(), /oauth_problem=token_revoked/);
}

async function denyAndCheck(source: SourceWorld, page: Page, client: FlowClient): Promise<void> {
  await page.getByRole('button', { name: 'Deny' }).click();
  await page.getByRole('heading', { name: 'Back in the client app' }).waitFor();
  const arrived = source.world.callback.received.at(-1)!;
  assert.equal(arrived.searchParams.get('oauth_problem'), 'user_refused');
  assert.equal((await client.finishRaw('anything')).status, 401);
}

describe('Identity source local: Latchkey’s own accounts', { skip: needsChromium }, () => {
  let source: SourceWorld;
  before(async () => {
    source = await startSourceWorld(() => ({ source: 'local' }));
    await source.world.server.provider.owners.create('alice', PASSWORD);
  });
  after(async () => {
    await source?.world.close();
    await source?.upstream.close();
  });

  it('signs in on Latchkey’s form, allows, and the API knows the owner by its id', async () => {
    const client = source.client();
    const { page } = await source.world.context();
    await page.goto(await client.start(source.world.callback.url));
    await signIn(page, 'alice');
    const alice = await source.world.server.provider.owners.get('alice');
    await allowAndCheck(source, page, client, {
      subject: alice.id,
      name: 'alice',
      source: 'local',
    });
  });

  it('denies', async () => {
    const client = source.client();
    const { page } = await source.world.context();
    await page.goto(await client.start(source.world.callback.url));
    await signIn(page, 'alice');
    await denyAndCheck(source, page, client);
  });
});

describe('Identity source oidc: a real OpenID Connect provider', { skip: needsChromium }, () => {
  let idp: TestIdentityProvider;
  let source: SourceWorld;
  before(async () => {
    idp = await startIdentityProvider({
      'ada-42': { name: 'Ada Lovelace', email: 'ada@example.com' },
      'grace-7': { name: 'Grace Hopper', email: 'grace@example.com' },
    });
    source = await startSourceWorld(() => ({
      source: 'oidc',
      issuer: idp.issuer,
      clientId: idp.clientId,
      clientSecret: idp.clientSecret,
    }));
    idp.register(`${source.world.server.url}/signin/oidc/callback`);
  });
  after(async () => {
    await source?.world.close();
    await source?.upstream.close();
    await idp?.close();
  });

  /** The identity provider's own login form and consent page, as a person goes through them. */
  async function signInAtProvider(page: Page, login: string): Promise<void> {
    await page.getByPlaceholder('Enter any login').fill(login);
    await page.getByPlaceholder('and password').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
  }

  it('sends a signed-out owner straight to the provider and back to the consent page; the API knows the owner by sub', async () => {
    const client = source.client();
    const { page } = await source.world.context();
    await page.goto(await client.start(source.world.callback.url));
    assert.ok(page.url().startsWith(idp.issuer), page.url());
    await screenshot(page, 'oidc-provider-login');
    await signInAtProvider(page, 'ada-42');
    await screenshot(page, 'oidc-consent');
    await allowAndCheck(source, page, client, {
      subject: 'ada-42',
      name: 'Ada Lovelace',
      source: 'oidc',
    });
    const owner = await source.world.server.provider.owners.findByIdentity({
      source: 'oidc',
      issuer: idp.issuer,
      subject: 'ada-42',
    });
    assert.equal(owner?.passwordHash, null);
    assert.equal(owner?.username, null);
  });

  it('denies', async () => {
    const client = source.client();
    const { page } = await source.world.context();
    await page.goto(await client.start(source.world.callback.url));
    await signInAtProvider(page, 'grace-7');
    await denyAndCheck(source, page, client);
  });

  it('refuses a callback with a wrong state, signing nobody in', async () => {
    const { page } = await source.world.context();
    const response = await page.goto(
      `${source.world.server.url}/signin/oidc/callback?code=made-up&state=made-up`,
    );
    assert.equal(response?.status(), 400);
    await page.getByRole('heading', { name: 'We can’t find this sign-in' }).waitFor();
    await page.goto(`${source.world.server.url}/account/apps`);
    assert.ok(page.url().startsWith(idp.issuer), 'still signed out: sent to sign in');
  });

  /**
   * The provider's login and consent in `page`, then its answer followed by hand up to
   * Latchkey's callback, which this browser never opens: returns the callback URL.
   */
  async function providerAnswer(page: Page, login: string): Promise<string> {
    await page.getByPlaceholder('Enter any login').fill(login);
    await page.getByPlaceholder('and password').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).waitFor();
    const action = await page.locator('form').getAttribute('action');
    let response = await page.request.post(new URL(action!, page.url()).href, {
      form: { prompt: 'consent' },
      maxRedirects: 0,
    });
    for (let hop = 0; hop < 5; hop++) {
      const target = new URL(response.headers()['location']!, response.url());
      if (target.pathname === '/signin/oidc/callback') return target.href;
      response = await page.request.get(target.href, { maxRedirects: 0 });
    }
    throw new Error('The provider never sent the browser back to Latchkey.');
  }

  it('refuses the provider’s answer when it reaches another browser than the one that started', async () => {
    const client = source.client();
    const first = await source.world.context();
    await first.page.goto(await client.start(source.world.callback.url));
    const callback = await providerAnswer(first.page, 'ada-42');
    const second = await source.world.context();
    const response = await second.page.goto(callback);
    assert.equal(response?.status(), 403);
    await second.page
      .getByRole('heading', { name: 'This sign-in was started in another browser' })
      .waitFor();
    assert.equal(
      (await source.world.server.store.temporaryCredentials.find(client.temporary!.token))?.state,
      'issued',
    );
  });

  it('shows a clear page, not a 500, when the provider fails while the browser is away, and approves nothing', async () => {
    const client = source.client();
    const { page } = await source.world.context();
    await page.goto(await client.start(source.world.callback.url));
    const callback = await providerAnswer(page, 'ada-42');
    // The provider is gone by the time Latchkey exchanges the code.
    await idp.close();
    const response = await page.goto(callback);
    assert.equal(response?.status(), 502);
    await page
      .getByRole('heading', { name: 'The sign-in service is not answering properly' })
      .waitFor();
    assert.equal(
      (await source.world.server.store.temporaryCredentials.find(client.temporary!.token))?.state,
      'issued',
    );
  });

  it('served every page with frame-ancestors none, X-Frame-Options DENY and a strict CSP', async () => {
    await assertEveryDocumentProtected(source.world.documents);
  });
});

describe(
  'Identity source oidc with the provider down from the start',
  { skip: needsChromium },
  () => {
    let source: SourceWorld;
    before(async () => {
      const idp = await startIdentityProvider({});
      await idp.close(); // its port now refuses connections
      source = await startSourceWorld(() => ({
        source: 'oidc',
        issuer: idp.issuer,
        clientId: idp.clientId,
        clientSecret: idp.clientSecret,
      }));
    });
    after(async () => {
      await source?.world.close();
      await source?.upstream.close();
    });

    it('shows a 502 page saying the sign-in service is not answering, and stores nothing', async () => {
      const client = source.client();
      const { page } = await source.world.context();
      const response = await page.goto(await client.start(source.world.callback.url));
      assert.equal(response?.status(), 502);
      await page
        .getByRole('heading', { name: 'The sign-in service is not answering properly' })
        .waitFor();
      await screenshot(page, 'oidc-provider-down');
    });
  },
);

describe('Identity source delegated: the team’s own login app', { skip: needsChromium }, () => {
  let source: SourceWorld;
  let loginApp: LoginApp;
  before(async () => {
    let loginUrl = '';
    source = await startSourceWorld(() => ({
      source: 'delegated',
      get loginUrl() {
        return loginUrl;
      },
      adminToken: ADMIN_TOKEN,
    }));
    loginApp = await startLoginApp({
      latchkeyUrl: source.world.server.url,
      adminToken: ADMIN_TOKEN,
      users: [
        {
          username: 'ada@example.com',
          password: 'analytical engine',
          subject: 'user-1815',
          name: 'Ada Lovelace',
        },
      ],
    });
    loginUrl = loginApp.loginUrl;
  });
  after(async () => {
    await source?.world.close();
    await source?.upstream.close();
    await loginApp?.close();
  });

  async function logInAtApp(page: Page): Promise<void> {
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Secret').fill('analytical engine');
    await page.getByRole('button', { name: 'Log in' }).click();
  }

  it('sends a signed-out owner to the login app, which accepts the challenge; the API knows the owner by the app’s subject', async () => {
    const client = source.client();
    const { page } = await source.world.context();
    await page.goto(await client.start(source.world.callback.url));
    assert.ok(page.url().startsWith(loginApp.loginUrl), page.url());
    assert.match(new URL(page.url()).searchParams.get('login_challenge') ?? '', /^[\w-]{43}$/);
    await screenshot(page, 'delegated-login-app');
    await logInAtApp(page);
    await allowAndCheck(source, page, client, {
      subject: 'user-1815',
      name: 'Ada Lovelace',
      source: 'delegated',
    });
  });

  it('denies', async () => {
    const client = source.client();
    const { page } = await source.world.context();
    await page.goto(await client.start(source.world.callback.url));
    await logInAtApp(page);
    await denyAndCheck(source, page, client);
  });

  it('ends the request as a denial when the login app rejects the challenge (Cancel)', async () => {
    const client = source.client();
    const { page } = await source.world.context();
    await page.goto(await client.start(source.world.callback.url));
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('heading', { name: 'Back in the client app' }).waitFor();
    const arrived = source.world.callback.received.at(-1)!;
    assert.equal(arrived.searchParams.get('oauth_problem'), 'user_refused');
    assert.equal((await client.finishRaw('anything')).status, 401);
  });

  it('refuses a forged login_challenge: the login app is told 404 and nobody is signed in', async () => {
    const { page } = await source.world.context();
    await page.goto(`${loginApp.loginUrl}?login_challenge=forged-challenge`);
    await logInAtApp(page);
    await page.getByText('Latchkey refused: This sign-in is unknown').waitFor();
  });

  it('refuses a replayed login_challenge and a replayed redirect_to', async () => {
    const client = source.client();
    const { page } = await source.world.context();
    await page.goto(await client.start(source.world.callback.url));
    const loginPage = page.url();
    let redirectTo = '';
    page.on('response', (response) => {
      const location = response.headers()['location'];
      if (response.url().startsWith(loginApp.loginUrl) && location !== undefined) {
        redirectTo = location;
      }
    });
    await logInAtApp(page);
    await page.getByRole('button', { name: 'Allow' }).waitFor();
    // The same challenge again, at the login app: already answered.
    await page.goto(loginPage);
    await logInAtApp(page);
    await page.getByText('Latchkey refused: This sign-in was already completed').waitFor();
    // The same redirect_to again, in the same browser: used once already.
    const replay = await page.goto(redirectTo);
    assert.equal(replay?.status(), 409);
    await page.getByRole('heading', { name: 'This sign-in was already used' }).waitFor();
  });

  it('refuses a redirect_to opened in another browser, and approves nothing', async () => {
    const client = source.client();
    const first = await source.world.context();
    const redirectTo = stopRedirect(
      first.page,
      (url) => url.href === loginApp.loginUrl,
      '/signin/delegated/callback',
    );
    await first.page.goto(await client.start(source.world.callback.url));
    await logInAtApp(first.page);
    const second = await source.world.context();
    const response = await second.page.goto(await redirectTo);
    assert.equal(response?.status(), 403);
    await second.page
      .getByRole('heading', { name: 'This sign-in was started in another browser' })
      .waitFor();
    // Still signed out there: Connected apps sends it to sign in at the login app.
    await second.page.goto(`${source.world.server.url}/account/apps`);
    assert.ok(second.page.url().startsWith(loginApp.loginUrl), second.page.url());
    assert.equal(
      (await source.world.server.store.temporaryCredentials.find(client.temporary!.token))?.state,
      'issued',
    );
  });

  it('served every page with frame-ancestors none, X-Frame-Options DENY and a strict CSP', async () => {
    await assertEveryDocumentProtected(source.world.documents);
  });
});

/**
 * The first redirect to Latchkey's `callbackPath`, stopped: requests that `matches` are sent for
 * the browser without following redirects; one leading to the callback is replaced by a blank
 * page (so this browser never reaches it) and its target returned.
 */
function stopRedirect(
  page: Page,
  matches: (url: URL) => boolean,
  callbackPath: string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    void page.route(
      (url) => matches(url),
      async (route) => {
        try {
          const response = await route.fetch({ maxRedirects: 0 });
          const location = response.headers()['location'];
          const target =
            location === undefined ? undefined : new URL(location, route.request().url());
          if (target?.pathname !== callbackPath) return await route.fulfill({ response });
          resolve(target.href);
          await route.fulfill({ status: 200, contentType: 'text/plain', body: 'stopped' });
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      },
    );
  });
}
