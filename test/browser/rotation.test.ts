// Rotation with overlap in a real browser: a developer rotates an app's secret with an overlap
// chosen on the confirmation page, both secrets sign during it and only the new one after it;
// the app page shows the overlap and can end it early; the operator console offers the same.
// Forged overlaps, posts without the CSRF token and another developer's posts change nothing. The server's clock is moved, never
// waited for.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { signRequest } from '../../src/client/index.ts';
import { consolePlugin } from '../../src/web/console/index.ts';
import { formatTime } from '../../src/web/format.ts';
import { TestClock } from '../conformance/support/world.ts';
import {
  PASSWORD,
  assertEveryDocumentProtected,
  needsChromium,
  signIn,
  startBrowserWorld,
} from './support.ts';
import type { BrowserWorld } from './support.ts';

const HOUR = 3_600_000;

describe('Rotating a secret with an overlap, in a real browser', { skip: needsChromium }, () => {
  let world: BrowserWorld;
  const clock = new TestClock();
  before(async () => {
    world = await startBrowserWorld({ app: { console: consolePlugin }, now: clock.now });
    await world.server.provider.owners.create('erin', PASSWORD);
    await world.server.provider.owners.create('frank', PASSWORD);
  });
  after(() => world?.close());

  /** A request signed with the client's key and `secret` (HMAC-SHA1, at the server's time). */
  async function signedCall(key: string, secret: string) {
    const signed = signRequest({
      method: 'GET',
      url: `${world.server.url}/api/me`,
      client: { key, secret },
      signatureMethod: 'HMAC-SHA1',
      transmission: 'header',
      timestamp: clock.seconds(),
    });
    const response = await fetch(signed.url, { headers: signed.headers });
    const fields = new URLSearchParams(await response.text());
    return {
      status: response.status,
      problem: fields.get('oauth_problem'),
      advice: fields.get('oauth_problem_advice') ?? '',
    };
  }

  async function signedInAs(username: string): Promise<Page> {
    const { page } = await world.context();
    await page.goto(`${world.server.url}/signin`);
    await signIn(page, username);
    return page;
  }

  /** An app of `username`'s, registered with the provider; its key and first secret. */
  async function appOf(username: string, name: string) {
    const developerId = (await world.server.provider.owners.get(username)).id;
    return world.server.provider.clients.register({ name, developerId });
  }

  /** Rotates through the confirmation page with the overlap labelled `choice`; the new secret. */
  async function rotate(page: Page, key: string, choice: string): Promise<string> {
    await page.goto(`${world.server.url}/developer/apps/${key}`);
    await page.getByRole('link', { name: 'Rotate secret' }).click();
    const none = page.getByLabel('No overlap: the current secret stops working now');
    assert.equal(await none.isChecked(), true, 'no overlap is the default');
    await page.getByLabel(choice).check();
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('heading', { name: /^New secret for / }).waitFor();
    return (await page.locator('#client-secret').textContent())!.trim();
  }

  it('accepts the old and the new secret for the 24 hours chosen, then only the new one', async () => {
    const page = await signedInAs('erin');
    await page.goto(`${world.server.url}/developer/apps/new`);
    await page.getByLabel('App name').fill('Rolling Printer');
    await page.getByRole('button', { name: 'Register app' }).click();
    await page.getByRole('heading', { name: 'Rolling Printer is registered' }).waitFor();
    const key = (await page.locator('#client-key').textContent())!.trim();
    const old = (await page.locator('#client-secret').textContent())!.trim();

    const fresh = await rotate(page, key, '24 hours');
    assert.notEqual(fresh, old);
    const until = formatTime(clock.now() + 24 * HOUR);
    await page.getByText(`The previous secret is still accepted until ${until}`).waitFor();
    assert.equal((await signedCall(key, old)).status, 200);
    assert.equal((await signedCall(key, fresh)).status, 200);

    await page.getByRole('link', { name: 'Go to the app' }).click();
    await page.getByText(`Previous secret valid until ${until} (no use recorded yet)`).waitFor();
    // Once upkeep has written it, the page tells the developer the old secret is still in use.
    await world.server.provider.maintain();
    await page.reload();
    await page
      .getByText(`Previous secret valid until ${until} (last used ${formatTime(clock.now())})`)
      .waitFor();

    clock.offsetMs += 24 * HOUR;
    const refused = await signedCall(key, old);
    assert.equal(refused.status, 401);
    assert.equal(refused.problem, 'signature_invalid');
    assert.match(refused.advice, /previous secret, replaced at .* and refused since/);
    assert.equal((await signedCall(key, fresh)).status, 200);
  });

  it('refuses the old secret at once after End the overlap now on the app page', async () => {
    const app = await appOf('erin', 'Leaky Printer');
    const page = await signedInAs('erin');
    const fresh = await rotate(page, app.key, '7 days');
    await page.getByRole('link', { name: 'Go to the app' }).click();
    const until = formatTime(clock.now() + 7 * 24 * HOUR);
    await page.getByText(`Previous secret valid until ${until}`).waitFor();
    assert.equal((await signedCall(app.key, app.secret)).status, 200);

    await page.getByRole('button', { name: 'End the overlap now' }).click();
    await page
      .getByText('The overlap ended: only the current secret and key are accepted now.')
      .waitFor();
    assert.equal(await page.getByText('Previous secret valid until').count(), 0);
    assert.equal(await page.getByRole('button', { name: 'End the overlap now' }).count(), 0);
    const refused = await signedCall(app.key, app.secret);
    assert.equal(refused.status, 401);
    assert.equal(refused.problem, 'signature_invalid');
    assert.equal((await signedCall(app.key, fresh)).status, 200);
  });

  it('keeps no overlap when the default is left chosen', async () => {
    const app = await appOf('erin', 'Strict Printer');
    const page = await signedInAs('erin');
    await page.goto(`${world.server.url}/developer/apps/${app.key}/secret`);
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByText('The old secret stopped working.').waitFor();
    assert.equal((await signedCall(app.key, app.secret)).status, 401);
    assert.deepEqual(await world.server.provider.clients.overlaps(app.key), []);
  });

  it('refuses a forged overlap (400) and a post without the CSRF token (403), changing nothing', async () => {
    const app = await appOf('erin', 'Guarded Printer');
    const page = await signedInAs('erin');
    const confirm = `${world.server.url}/developer/apps/${app.key}/secret`;
    await page.goto(confirm);
    // A value no radio offers, posted by the page's own form with its valid CSRF token.
    await page.locator('input[name="overlap"][value="86400"]').evaluate((input) => {
      (input as { value: string }).value = '99999999';
    });
    await page.getByLabel('24 hours').check();
    const [forged] = await Promise.all([
      page.waitForResponse((response) => response.url() === confirm),
      page.getByRole('button', { name: 'Rotate secret' }).click(),
    ]);
    assert.equal(forged.status(), 400);
    await page.getByRole('heading', { name: 'This request can’t be read' }).waitFor();

    await page.goto(confirm);
    const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
    for (const overlap of ['abc', '-1', '1', '']) {
      const answer = await page.request.post(confirm, { form: { _csrf: csrf, overlap } });
      assert.equal(answer.status(), 400, `overlap=${overlap}`);
    }
    const withoutCsrf = await page.request.post(confirm, { form: { overlap: '86400' } });
    assert.equal(withoutCsrf.status(), 403);

    assert.equal((await world.server.provider.clients.get(app.key)).secret, app.secret);
    assert.equal((await signedCall(app.key, app.secret)).status, 200);
  });

  it("refuses another developer's rotation and end of overlap with 404, and the overlap runs on", async () => {
    const app = await appOf('erin', 'Private Printer');
    const owner = await signedInAs('erin');
    const fresh = await rotate(owner, app.key, '1 hour');

    const other = await signedInAs('frank');
    await other.goto(`${world.server.url}/developer/apps/new`);
    const csrf = await other.locator('input[name="_csrf"]').first().inputValue();
    const base = `${world.server.url}/developer/apps/${app.key}`;
    for (const path of ['/secret', '/overlaps/end']) {
      const answer = await other.request.post(base + path, {
        form: { _csrf: csrf, overlap: '86400' },
      });
      assert.equal(answer.status(), 404, path);
    }
    const endWithoutCsrf = await owner.request.post(`${base}/overlaps/end`, { form: {} });
    assert.equal(endWithoutCsrf.status(), 403);

    assert.equal((await world.server.provider.clients.get(app.key)).secret, fresh);
    assert.equal((await world.server.provider.clients.overlaps(app.key)).length, 1);
    assert.equal((await signedCall(app.key, app.secret)).status, 200);
  });

  it('rotates with an overlap in the operator console, shows it on the client page, and ends it', async () => {
    const { provider } = world.server;
    const app = await provider.clients.register({ name: 'Console Printer' });
    const operator = (await provider.admin.tokens.add('ops-oncall', 'operator')).token;
    const { page } = await world.context({ width: 1200 });
    await page.goto(`${world.server.url}/admin/console/clients/${app.key}`);
    await page.getByLabel('Admin token').fill(operator);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Console Printer' }).waitFor();

    await page.getByRole('link', { name: 'Rotate secret' }).click();
    const none = page.getByLabel('No overlap: the current secret stops working now');
    assert.equal(await none.isChecked(), true, 'no overlap is the default');
    await page.getByLabel('1 hour').check();
    await page.getByRole('button', { name: 'Rotate the secret' }).click();
    const until = formatTime(clock.now() + HOUR);
    await page.getByText(`The previous secret is still accepted until ${until}.`).waitFor();
    const fresh = (await page.locator('#secret').textContent())!.trim();
    assert.equal((await signedCall(app.key, app.secret)).status, 200);
    assert.equal((await signedCall(app.key, fresh)).status, 200);

    await page.getByRole('link', { name: 'Back to Console Printer' }).click();
    await page.getByText(`Previous secret valid until ${until}`).waitFor();
    await page.getByRole('link', { name: 'End the overlap now' }).click();
    await page.getByRole('button', { name: 'End the overlap' }).click();
    await page.getByText('The overlap ended: the previous secret and key are refused.').waitFor();
    assert.equal(await page.getByText('Previous secret valid until').count(), 0);
    assert.equal((await signedCall(app.key, app.secret)).status, 401);
    assert.equal((await signedCall(app.key, fresh)).status, 200);

    const confirm = `${world.server.url}/admin/console/clients/${app.key}/confirm?action=rotate`;
    await page.goto(confirm);
    const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
    const rotate = `${world.server.url}/admin/console/clients/${app.key}/rotate`;
    // 60: an overlap the provider would take, but not one the page offers.
    for (const overlap of ['99999999', '60', 'abc']) {
      const forged = await page.request.post(rotate, { form: { _csrf: csrf, overlap } });
      assert.equal(forged.status(), 400, `overlap=${overlap}`);
    }
    const withoutCsrf = await page.request.post(rotate, { form: { overlap: '3600' } });
    assert.equal(withoutCsrf.status(), 403);
    assert.equal((await provider.clients.get(app.key)).secret, fresh);
  });

  it('served every page of this suite with frame-ancestors none, X-Frame-Options DENY and a strict CSP', async () => {
    await assertEveryDocumentProtected(world.documents);
  });
});
