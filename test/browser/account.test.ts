import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
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

describe(
  'In a real browser: connected apps and the developer portal',
  { skip: needsChromium },
  () => {
    let world: BrowserWorld;
    before(async () => {
      world = await startBrowserWorld();
      await world.server.provider.owners.create('alice', PASSWORD);
      await world.server.provider.owners.create('dana', PASSWORD);
    });
    after(() => world?.close());

    /** Takes the person through consent and the client through the exchange; returns its API. */
    async function authorize(page: Page, client: FlowClient) {
      await page.goto(await client.start(world.callback.url));
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.getByRole('heading', { name: 'Back in the client app' }).waitFor();
      return client.finish(world.callback.received.at(-1)!.searchParams.get('oauth_verifier')!);
    }

    it('Revoke on Connected apps refuses the client’s very next request with 401 token_revoked', async () => {
      const registered = await world.server.provider.clients.register({
        name: 'Calendar Bridge',
        description: 'Copies your events to your work calendar.',
        website: 'https://calendar.example',
      });
      await world.server.provider.clients.update(registered.key, { verified: true });
      const client = new FlowClient(world.server, {
        key: registered.key,
        secret: registered.secret,
      });
      const { page } = await world.context();
      await page.goto(`${world.server.url}/signin`);
      await signIn(page, 'alice');
      const api = await authorize(page, client);
      assert.equal((await api(`${world.server.url}/api/me`)).status, 200);

      await page.goto(`${world.server.url}/`);
      await screenshot(page, 'home');
      await page.getByRole('link', { name: 'Connected apps' }).first().click();
      await page.getByRole('heading', { name: 'Calendar Bridge' }).waitFor();
      await screenshot(page, 'connected-apps');
      await page.getByRole('link', { name: 'Revoke access for Calendar Bridge' }).click();
      await page.getByRole('button', { name: 'Revoke access' }).click();
      await page.getByText('Calendar Bridge can no longer use your account').waitFor();
      await screenshot(page, 'connected-apps-revoked');

      const refused = await api(`${world.server.url}/api/me`);
      assert.equal(refused.status, 401);
      assert.match(refused.headers.get('www-authenticate') ?? '', /^OAuth realm="/);
      assert.match(await refused.text(), /oauth_problem=token_revoked/);
    });

    it('takes a developer from registration in the portal to a working signed request', async () => {
      const { page } = await world.context();
      await page.goto(`${world.server.url}/signin`);
      await signIn(page, 'dana');
      await page.getByRole('link', { name: 'Developer', exact: true }).click();
      await page.getByRole('link', { name: 'Register an app' }).click();
      await page.getByLabel('App name').fill('Recipe Box');
      await page.getByLabel('Description').fill('Saves the recipes you like to your account.');
      await page.getByLabel('Website').fill('https://recipes.example');
      await page.getByLabel('Callback URIs').fill(world.callback.url);
      await screenshot(page, 'developer-new');
      await page.getByRole('button', { name: 'Register app' }).click();
      await page.getByRole('heading', { name: 'Recipe Box is registered' }).waitFor();
      await screenshot(page, 'developer-secret');
      const key = (await page.locator('#client-key').textContent())!.trim();
      const secret = (await page.locator('#client-secret').textContent())!.trim();

      const api = await authorize(page, new FlowClient(world.server, { key, secret }));
      const me = (await (await api(`${world.server.url}/api/me?ping=1`)).json()) as {
        client: { name: string };
        owner: { name: string };
        query: string[][];
      };
      assert.deepEqual(
        [me.client.name, me.owner.name, me.query],
        ['Recipe Box', 'dana', [['ping', '1']]],
      );

      await page.goto(`${world.server.url}/developer`);
      await screenshot(page, 'developer-apps');
      await page.getByRole('link', { name: 'Recipe Box' }).click();
      await page.getByRole('link', { name: 'Rotate secret' }).waitFor();
      assert.equal((await page.content()).includes(secret), false, 'the secret is shown once only');
      await screenshot(page, 'developer-app');
      await page.getByRole('link', { name: 'Delete app' }).click();
      await screenshot(page, 'developer-delete');
      await page.getByRole('button', { name: 'Delete app' }).click();
      await page.getByText('The app was deleted.').waitFor();
      assert.equal((await api(`${world.server.url}/api/me`)).status, 401);
    });

    it('serves the documentation page with the endpoints of this server', async () => {
      const { page } = await world.context();
      await page.goto(`${world.server.url}/docs`);
      await page.getByText(`POST ${world.server.url}/oauth/request_token`).waitFor();
      await screenshot(page, 'docs');
    });

    it('served every page of this suite with frame-ancestors none, X-Frame-Options DENY and a strict CSP', async () => {
      await assertEveryDocumentProtected(world.documents);
    });
  },
);
