import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import {
  FlowClient,
  PASSWORD,
  assertEveryDocumentProtected,
  needsChromium,
  signIn,
  startBrowserWorld,
} from './support.ts';
import type { BrowserWorld } from './support.ts';

describe('and 4 in a real browser: CSRF, framing and CSP', { skip: needsChromium }, () => {
  let world: BrowserWorld;
  let client: FlowClient;
  before(async () => {
    world = await startBrowserWorld();
    await world.server.provider.owners.create('alice', PASSWORD);
    const registered = await world.server.provider.clients.register({ name: 'Target App' });
    client = new FlowClient(world.server, { key: registered.key, secret: registered.secret });
  });
  after(() => world?.close());

  /** A page on another site: the callback server under the name localhost (not 127.0.0.1). */
  async function attackerPage(page: Page, html: string) {
    world.callback.pages.set('/prize', `<!doctype html><title>Win a prize</title>${html}`);
    await page.goto(`${world.callback.otherSite}/prize`);
  }

  it('refuses a forged cross-site form post (Allow on a pending request) with 403, and the request stays unanswered', async () => {
    const { page } = await world.context();
    await page.goto(`${world.server.url}/signin`);
    await signIn(page, 'alice');
    const url = new URL(await client.start(world.callback.url));
    const token = url.searchParams.get('oauth_token')!;
    await attackerPage(
      page,
      `<form method="post" action="${world.server.url}/oauth/authorize">
         <input type="hidden" name="oauth_token" value="${token}">
         <input type="hidden" name="decision" value="allow">
         <button>Claim</button></form>`,
    );
    const [response] = await Promise.all([
      page.waitForResponse(`${world.server.url}/oauth/authorize`),
      page.getByRole('button', { name: 'Claim' }).click(),
    ]);
    assert.equal(response.status(), 403);
    await page.getByRole('heading', { name: 'This form can’t be accepted' }).waitFor();
    assert.equal((await world.server.store.temporaryCredentials.find(token))?.state, 'issued');
    assert.equal(world.callback.received.length, 0);
  });

  it('refuses to be shown inside another site’s frame (frame-ancestors, X-Frame-Options)', async () => {
    const { page } = await world.context();
    const [failed] = await Promise.all([
      page.waitForEvent(
        'requestfailed',
        (request) => request.url() === `${world.server.url}/signin`,
      ),
      attackerPage(
        page,
        `<iframe src="${world.server.url}/signin" width="600" height="400"></iframe>`,
      ),
    ]);
    assert.equal(failed.failure()?.errorText, 'net::ERR_BLOCKED_BY_RESPONSE');
    const frame = page.frames().find((f) => f !== page.mainFrame())!;
    assert.equal(await frame.locator('#username').count(), 0);
  });

  it('runs every page without a CSP violation: no inline script or style anywhere', async () => {
    const signedOut = await world.context();
    for (const path of ['/', '/signin', '/docs', '/oauth/authorize?oauth_token=unknown']) {
      await signedOut.page.goto(`${world.server.url}${path}`);
    }
    const { page, cspViolations } = await world.context();
    await page.goto(`${world.server.url}/signin`);
    await signIn(page, 'alice');
    await page.goto(await client.start('oob'));
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.getByRole('button', { name: 'Copy' }).waitFor(); // the one script ran
    for (const path of ['/', '/account/apps', '/developer', '/developer/apps/new', '/docs']) {
      await page.goto(`${world.server.url}${path}`);
    }
    assert.deepEqual([...signedOut.cspViolations, ...cspViolations], []);
  });

  it('served every page of this suite with frame-ancestors none, X-Frame-Options DENY and a strict CSP', async () => {
    await assertEveryDocumentProtected(world.documents);
  });
});
