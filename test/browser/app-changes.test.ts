// After registration, in a real browser: a developer edits an app's callbacks and the next
// flow uses the new one; an operator disables a client and its token is refused; an owner
// unticks `write` on the consent page and the token carries `read` only.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
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

describe('Apps after registration, in a real browser', { skip: needsChromium }, () => {
  let world: BrowserWorld;
  before(async () => {
    world = await startBrowserWorld();
    await world.server.provider.owners.create('alice', PASSWORD);
    await world.server.provider.owners.create('dana', PASSWORD);
  });
  after(() => world?.close());

  it("edits an app's callbacks in the portal, and the next flow uses the new one", async () => {
    const oldCallback = `${world.callback.url}?v=old`;
    const newCallback = `${world.callback.url}?v=new`;
    const { page } = await world.context();
    await page.goto(`${world.server.url}/signin`);
    await signIn(page, 'dana');
    await page.goto(`${world.server.url}/developer/apps/new`);
    await page.getByLabel('App name').fill('Moving Printer');
    await page.getByLabel('Callback URIs').fill(oldCallback);
    await page.getByRole('button', { name: 'Register app' }).click();
    await page.getByRole('heading', { name: 'Moving Printer is registered' }).waitFor();
    const key = (await page.locator('#client-key').textContent())!.trim();
    const secret = (await page.locator('#client-secret').textContent())!.trim();

    await page.getByRole('link', { name: 'Go to the app' }).click();
    await page.getByRole('link', { name: 'Edit app' }).click();
    await page.getByLabel('Callback URIs').fill(newCallback);
    await screenshot(page, 'developer-edit');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Your changes were saved.').waitFor();
    assert.ok((await page.content()).includes('?v=new'));

    const client = new FlowClient(world.server, { key, secret });
    await assert.rejects(client.start(oldCallback), /parameter_rejected|400/);
    await page.goto(await client.start(newCallback));
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.getByRole('heading', { name: 'Back in the client app' }).waitFor();
    const arrived = world.callback.received.at(-1)!;
    assert.equal(arrived.searchParams.get('v'), 'new');
    const api = await client.finish(arrived.searchParams.get('oauth_verifier')!);
    assert.equal((await api(`${world.server.url}/api/me`)).status, 200);
  });

  it('refuses the token of a client the operator disabled, and accepts it again once enabled', async () => {
    const registered = await world.server.provider.clients.register({
      name: 'Switched Printer',
      developerId: (await world.server.provider.owners.get('dana')).id,
    });
    const client = new FlowClient(world.server, {
      key: registered.key,
      secret: registered.secret,
    });
    const { page } = await world.context();
    await page.goto(await client.start(world.callback.url));
    await signIn(page, 'alice');
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.getByRole('heading', { name: 'Back in the client app' }).waitFor();
    const api = await client.finish(
      world.callback.received.at(-1)!.searchParams.get('oauth_verifier')!,
    );
    assert.equal((await api(`${world.server.url}/api/me`)).status, 200);

    // `latchkey clients disable KEY` makes this call.
    await world.server.provider.clients.setDisabled(registered.key, true);
    const refused = await api(`${world.server.url}/api/me`);
    assert.equal(refused.status, 401);
    assert.match(await refused.text(), /oauth_problem=consumer_key_rejected/);

    const developer = await world.context();
    await developer.page.goto(`${world.server.url}/signin`);
    await signIn(developer.page, 'dana');
    await developer.page.goto(`${world.server.url}/developer/apps/${registered.key}`);
    await developer.page
      .getByText('This app is disabled by the operator of this server.')
      .waitFor();
    await screenshot(developer.page, 'developer-app-disabled');

    await world.server.provider.clients.setDisabled(registered.key, false);
    assert.equal((await api(`${world.server.url}/api/me`)).status, 200);
  });

  it('gives a token with read only when the owner unticks write on the consent page', async () => {
    const registered = await world.server.provider.clients.register({
      name: 'Album Viewer',
      description: 'Shows your albums on the living-room TV.',
    });
    const client = new FlowClient(world.server, {
      key: registered.key,
      secret: registered.secret,
    });
    const { page } = await world.context();
    await page.goto(await client.start(world.callback.url, 'read write'));
    await signIn(page, 'alice');
    const write = page.getByLabel('Create, change and delete your data');
    assert.equal(await write.isChecked(), true);
    await write.uncheck();
    await screenshot(page, 'consent-scope');
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.getByRole('heading', { name: 'Back in the client app' }).waitFor();
    const api = await client.finish(
      world.callback.received.at(-1)!.searchParams.get('oauth_verifier')!,
    );
    const me = (await (await api(`${world.server.url}/api/me`)).json()) as { scope: string };
    assert.equal(me.scope, 'read');
  });

  it('served every page of this suite with frame-ancestors none, X-Frame-Options DENY and a strict CSP', async () => {
    await assertEveryDocumentProtected(world.documents);
  });
});
