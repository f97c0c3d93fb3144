import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import type { Client } from '../../src/store/index.ts';
import {
  FlowClient,
  PASSWORD,
  needsChromium,
  signIn,
  startBrowserWorld,
} from '../browser/support.ts';
import type { BrowserWorld } from '../browser/support.ts';

const toAuthenticate = (url: string) => url.replace('/oauth/authorize?', '/oauth/authenticate?');

describe('"Sign in with" in a real browser (local accounts)', { skip: needsChromium }, () => {
  let world: BrowserWorld;
  let printer: Client;
  let remembering: Client;
  before(async () => {
    world = await startBrowserWorld();
    await world.server.provider.owners.create('alice', PASSWORD);
    printer = await world.server.provider.clients.register({ name: 'Photo Printer' });
    remembering = await world.server.provider.clients.register({
      name: 'Album Sync',
      rememberConsent: 'same-scope',
    });
  });
  after(() => world?.close());

  const clientFor = (client: Client) =>
    new FlowClient(world.server, { key: client.key, secret: client.secret });

  async function allowOnce(page: Page, client: FlowClient) {
    await page.goto(await client.start(world.callback.url));
    if (await page.getByLabel('Password').isVisible()) await signIn(page, 'alice');
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.getByRole('heading', { name: 'Back in the client app' }).waitFor();
    await client.finish(world.callback.received.at(-1)!.searchParams.get('oauth_verifier')!);
  }

  it('sends an owner who allowed the client straight back, and force_login asks for the password again', async () => {
    const { page } = await world.context();
    await allowOnce(page, clientFor(printer));

    const again = clientFor(printer);
    await page.goto(toAuthenticate(await again.start(world.callback.url)));
    await page.getByRole('heading', { name: 'Back in the client app' }).waitFor();
    const arrived = world.callback.received.at(-1)!;
    assert.equal(arrived.searchParams.get('oauth_token'), again.temporary!.token);
    const api = await again.finish(arrived.searchParams.get('oauth_verifier')!);
    assert.equal((await api(`${world.server.url}/api/me`)).status, 200);

    const forced = clientFor(printer);
    await page.goto(`${toAuthenticate(await forced.start(world.callback.url))}&force_login=true`);
    await page.getByLabel('Password').waitFor();
    assert.equal(await page.getByLabel('Username').inputValue(), 'alice');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Back in the client app' }).waitFor();
    assert.equal(
      world.callback.received.at(-1)!.searchParams.get('oauth_token'),
      forced.temporary!.token,
    );
  });

  it('remembered consent skips the page; Connected apps shows it and Ask me again stops it', async () => {
    const { page } = await world.context();
    await allowOnce(page, clientFor(remembering));
    const again = clientFor(remembering);
    await page.goto(await again.start(world.callback.url));
    await page.getByRole('heading', { name: 'Back in the client app' }).waitFor();
    assert.equal(
      world.callback.received.at(-1)!.searchParams.get('oauth_token'),
      again.temporary!.token,
    );

    await page.goto(`${world.server.url}/account/apps`);
    await page.getByText(/Approved automatically since/).waitFor();
    await page.getByRole('button', { name: 'Ask me again before approving Album Sync' }).click();
    await page.getByText('will ask you again the next time it wants access').waitFor();

    const asked = clientFor(remembering);
    await page.goto(await asked.start(world.callback.url));
    await page.getByRole('heading', { name: 'Album Sync wants to use your account' }).waitFor();
  });
});
