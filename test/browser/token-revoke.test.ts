// One token at a time, in a real browser (RFC 5849 §2.3 "the owner should be able to revoke
// issued token credentials"): an owner connects one app from two devices, sees both tokens on
// Connected apps by the device each was first used from, revokes one after the confirmation,
// and that token gets 401 token_revoked while the other keeps working.
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

const PHONE = 'Mozilla/5.0 (Android 14; Mobile; rv:128.0) Gecko/128.0 Firefox/128.0';
const LAPTOP = 'curl/8.5.0';

describe('Revoking one token of an app, in a real browser', { skip: needsChromium }, () => {
  let world: BrowserWorld;
  before(async () => {
    world = await startBrowserWorld();
    await world.server.provider.owners.create('alice', PASSWORD);
  });
  after(() => world?.close());

  /** The flow in this browser page, Allow pressed: a signing fetch for the new token. */
  async function connectFrom(page: Page, client: FlowClient) {
    await page.goto(await client.start(world.callback.url));
    if (await page.getByLabel('Username').isVisible()) await signIn(page, 'alice');
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.getByRole('heading', { name: 'Back in the client app' }).waitFor();
    return client.finish(world.callback.received.at(-1)!.searchParams.get('oauth_verifier')!);
  }

  it('lists both devices, revokes one: 401 token_revoked for it, the other still works', async () => {
    const registered = await world.server.provider.clients.register({ name: 'Photo Printer' });
    const credentials = { key: registered.key, secret: registered.secret };
    const me = `${world.server.url}/api/me`;

    // Two devices, each connecting the app once: two tokens of one app for alice.
    const { page } = await world.context();
    const phone = await connectFrom(page, new FlowClient(world.server, credentials));
    const other = await world.context();
    const laptop = await connectFrom(other.page, new FlowClient(world.server, credentials));
    assert.equal((await phone(me, { headers: { 'user-agent': PHONE } })).status, 200);
    assert.equal((await laptop(me, { headers: { 'user-agent': LAPTOP } })).status, 200);

    await page.goto(`${world.server.url}/account/apps`);
    await page.getByText('Firefox on Android').first().waitFor();
    await page.getByText('curl/8.5').first().waitFor();
    await screenshot(page, 'connected-apps-tokens');

    await page
      .getByRole('link', { name: /^Revoke the token of Photo Printer on Firefox on Android/ })
      .click();
    await page
      .getByRole('heading', { name: 'Revoke Photo Printer on Firefox on Android?' })
      .waitFor();
    await page.getByRole('button', { name: 'Revoke this token' }).click();
    await page.getByText('One token of Photo Printer was revoked now').waitFor();

    const refused = await phone(me, { headers: { 'user-agent': PHONE } });
    assert.equal(refused.status, 401);
    assert.match(await refused.text(), /oauth_problem=token_revoked/);
    assert.equal((await laptop(me, { headers: { 'user-agent': LAPTOP } })).status, 200);
    // The page lists the token still live, and no longer the revoked one.
    assert.equal(await page.getByText('Firefox on Android').count(), 0);
    await page.getByText('curl/8.5').first().waitFor();
  });

  it('served every page of this suite with frame-ancestors none, X-Frame-Options DENY and a strict CSP', async () => {
    await assertEveryDocumentProtected(world.documents);
  });
});
