import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startLoginApp } from '../../examples/delegated-login/app.ts';
import type { LoginApp } from '../../examples/delegated-login/app.ts';
import type { Client } from '../../src/store/index.ts';
import { startIdentityProvider } from '../browser/identity-provider.ts';
import type { TestIdentityProvider } from '../browser/identity-provider.ts';
import { FlowClient, needsChromium, startBrowserWorld } from '../browser/support.ts';
import type { BrowserWorld } from '../browser/support.ts';

const ADMIN_TOKEN = 'an-admin-token-of-at-least-thirty-two-characters';
const toAuthenticate = (url: string) => url.replace('/oauth/authorize?', '/oauth/authenticate?');

async function allow(page: Page, world: BrowserWorld, client: FlowClient): Promise<void> {
  await page.getByRole('button', { name: 'Allow' }).click();
  await page.getByRole('heading', { name: 'Back in the client app' }).waitFor();
  await client.finish(world.callback.received.at(-1)!.searchParams.get('oauth_verifier')!);
}

describe('"Sign in with" and force_login with OpenID Connect', { skip: needsChromium }, () => {
  let idp: TestIdentityProvider;
  let world: BrowserWorld;
  let printer: Client;
  before(async () => {
    idp = await startIdentityProvider({
      'ada-42': { name: 'Ada Lovelace', email: 'ada@example.com' },
    });
    world = await startBrowserWorld({
      app: {
        identity: {
          source: 'oidc',
          issuer: idp.issuer,
          clientId: idp.clientId,
          clientSecret: idp.clientSecret,
        },
      },
    });
    idp.register(`${world.server.url}/signin/oidc/callback`);
    printer = await world.server.provider.clients.register({ name: 'Photo Printer' });
  });
  after(async () => {
    await world?.close();
    await idp?.close();
  });

  it('sends prompt=login and login_hint to the provider, which asks for the login again', async () => {
    const { page } = await world.context();
    const first = new FlowClient(world.server, { key: printer.key, secret: printer.secret });
    await page.goto(await first.start(world.callback.url));
    await page.getByPlaceholder('Enter any login').fill('ada-42');
    await page.getByPlaceholder('and password').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await allow(page, world, first);

    // Signed in at Latchkey and at the provider: without force_login, straight back.
    const again = new FlowClient(world.server, { key: printer.key, secret: printer.secret });
    await page.goto(toAuthenticate(await again.start(world.callback.url)));
    await page.getByRole('heading', { name: 'Back in the client app' }).waitFor();

    const forced = new FlowClient(world.server, { key: printer.key, secret: printer.secret });
    const seen: URL[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(idp.issuer)) seen.push(new URL(request.url()));
    });
    await page.goto(
      `${toAuthenticate(await forced.start(world.callback.url))}&force_login=true&screen_name=ada-42`,
    );
    await page.getByPlaceholder('Enter any login').waitFor();
    const authorization = seen.find((url) => url.searchParams.has('prompt'))!;
    assert.equal(authorization.searchParams.get('prompt'), 'login');
    assert.equal(authorization.searchParams.get('login_hint'), 'ada-42');
  });
});

describe(
  '"Sign in with" and force_login with the delegated login app',
  { skip: needsChromium },
  () => {
    let world: BrowserWorld;
    let loginApp: LoginApp;
    let printer: Client;
    before(async () => {
      let loginUrl = '';
      world = await startBrowserWorld({
        app: {
          identity: {
            source: 'delegated',
            get loginUrl() {
              return loginUrl;
            },
            adminToken: ADMIN_TOKEN,
          },
        },
      });
      loginApp = await startLoginApp({
        latchkeyUrl: world.server.url,
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
      printer = await world.server.provider.clients.register({ name: 'Photo Printer' });
    });
    after(async () => {
      await world?.close();
      await loginApp?.close();
    });

    it('passes force_login and login_hint to the login app, which asks again with the email filled in', async () => {
      const { page } = await world.context();
      const first = new FlowClient(world.server, { key: printer.key, secret: printer.secret });
      await page.goto(await first.start(world.callback.url));
      await page.getByLabel('Email').fill('ada@example.com');
      await page.getByLabel('Secret').fill('analytical engine');
      await page.getByRole('button', { name: 'Log in' }).click();
      await allow(page, world, first);

      const forced = new FlowClient(world.server, { key: printer.key, secret: printer.secret });
      await page.goto(
        `${toAuthenticate(await forced.start(world.callback.url))}&force_login=true&screen_name=ada%40example.com`,
      );
      await page.getByLabel('Secret').waitFor();
      const at = new URL(page.url());
      assert.equal(at.searchParams.get('force_login'), 'true');
      assert.equal(at.searchParams.get('login_hint'), 'ada@example.com');
      assert.equal(await page.getByLabel('Email').inputValue(), 'ada@example.com');
      await page.getByLabel('Secret').fill('analytical engine');
      await page.getByRole('button', { name: 'Log in' }).click();
      // Signed in again after the request began: the grant sends the owner straight back.
      await page.getByRole('heading', { name: 'Back in the client app' }).waitFor();
      assert.equal(
        world.callback.received.at(-1)!.searchParams.get('oauth_token'),
        forced.temporary!.token,
      );
    });
  },
);
