// Rotate secret (developer portal) and Revoke (Connected apps) act only after a confirmation
// page, as Delete does: the button on the app's page is a link to a page that says what will
// happen, whose form (CSRF-protected, no script needed) does it. And every page has an icon:
// `/favicon.ico` answers, and the layout links it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BASE, connect, startWeb, text } from './support.ts';
import type { WebWorld } from './support.ts';

/** The actions of the page's forms that post. */
function formActions(html: string): string[] {
  return [...html.matchAll(/<form method="post" action="([^"]+)"/g)].map((m) => m[1]!);
}

describe('confirmation steps and the site icon', () => {
  let world: WebWorld;
  before(async () => {
    world = await startWeb();
    await world.owner('dev');
  });
  after(() => world.close());

  it('asks before rotating a secret: the app page links to a confirmation, the secret unchanged until its form is posted', async () => {
    const dev = await world.provider.owners.get('dev');
    const client = await world.client({ developerId: dev.id });
    const browser = world.browser();
    await browser.signIn('dev');
    const key = encodeURIComponent(client.key);
    const appPage = (await browser.get(`/developer/apps/${key}`)).body;
    assert.ok(!formActions(appPage).includes(`/developer/apps/${key}/secret`), appPage);
    assert.match(
      appPage,
      new RegExp(`<a class="button" href="/developer/apps/${key}/secret">Rotate secret</a>`),
    );
    const confirm = await browser.get(`/developer/apps/${key}/secret`);
    assert.equal(confirm.statusCode, 200);
    assert.match(
      text(confirm.body),
      /Rotate the secret of Photo Printer\? .*stops working at once/,
    );
    assert.ok(formActions(confirm.body).includes(`/developer/apps/${key}/secret`));
    assert.equal((await world.provider.clients.get(client.key)).secret, client.secret);
    const rotated = await browser.post(`/developer/apps/${key}/secret`, {}, confirm);
    assert.equal(rotated.statusCode, 200);
    assert.notEqual((await world.provider.clients.get(client.key)).secret, client.secret);
  });

  it('asks before revoking an app: Connected apps links to a confirmation, access kept until its form is posted', async () => {
    const browser = world.browser();
    await browser.signIn('dev');
    const client = await world.client({ name: 'Calendar Bridge' });
    const { api } = await connect(world, browser, client);
    const list = (await browser.get('/account/apps')).body;
    assert.ok(!formActions(list).includes('/account/apps/revoke'), list);
    const confirm = await browser.get(
      `/account/apps/revoke?client_key=${encodeURIComponent(client.key)}`,
    );
    assert.equal(confirm.statusCode, 200);
    assert.match(text(confirm.body), /Revoke access for Calendar Bridge\?/);
    assert.ok(formActions(confirm.body).includes('/account/apps/revoke'));
    assert.equal((await api(`${BASE}/api/me`)).status, 200);
    const revoked = await browser.post('/account/apps/revoke', { client_key: client.key }, confirm);
    assert.equal(revoked.statusCode, 303);
    assert.equal((await api(`${BASE}/api/me`)).status, 401);
    assert.equal((await browser.get('/account/apps/revoke?client_key=nope')).statusCode, 404);
  });

  it('serves /favicon.ico and links the icon from every page', async () => {
    const icon = await world.app.inject({ method: 'GET', url: '/favicon.ico' });
    assert.equal(icon.statusCode, 200);
    assert.match(String(icon.headers['content-type']), /^image\/svg\+xml/);
    assert.match(icon.body, /^<svg /);
    const linked = await world.app.inject({ method: 'GET', url: '/static/favicon.svg' });
    assert.equal(linked.statusCode, 200);
    for (const url of ['/', '/signin', '/docs']) {
      const page = await world.app.inject({ method: 'GET', url });
      assert.match(
        page.body,
        /<link rel="icon" href="\/static\/favicon\.svg" type="image\/svg\+xml">/,
      );
    }
  });
});
