import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '../../src/store/index.ts';
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
  'RFC 5849 §2 in a real browser: the flow an owner goes through',
  { skip: needsChromium },
  () => {
    let world: BrowserWorld;
    let printer: Client;
    before(async () => {
      world = await startBrowserWorld();
      await world.server.provider.owners.create('alice', PASSWORD);
      printer = await world.server.provider.clients.register({
        name: 'Photo Printer',
        description: 'Prints the photos you choose from your albums, and nothing else.',
        website: 'https://printer.example',
      });
    });
    after(() => world?.close());

    const clientFor = (client: Client) =>
      new FlowClient(world.server, { key: client.key, secret: client.secret });

    it('Allow sends the browser to the callback with oauth_token and oauth_verifier, which the client exchanges and uses on /api/me', async () => {
      const client = clientFor(printer);
      const { page } = await world.context();
      await page.goto(await client.start(world.callback.url));
      await screenshot(page, 'sign-in');
      await signIn(page, 'alice');
      await page
        .getByRole('heading', { name: 'Photo Printer wants to use your account' })
        .waitFor();
      await screenshot(page, 'consent');
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.getByRole('heading', { name: 'Back in the client app' }).waitFor();
      const arrived = world.callback.received.at(-1)!;
      assert.equal(arrived.searchParams.get('oauth_token'), client.temporary!.token);
      const api = await client.finish(arrived.searchParams.get('oauth_verifier')!);
      const me = (await (await api(`${world.server.url}/api/me`)).json()) as {
        owner: { name: string };
      };
      assert.equal(me.owner.name, 'alice');
    });

    it('Deny sends the browser to the callback with oauth_problem=user_refused, and no token can be had', async () => {
      const client = clientFor(printer);
      const { page } = await world.context();
      await page.goto(await client.start(world.callback.url));
      await signIn(page, 'alice');
      await page.getByRole('button', { name: 'Deny' }).click();
      await page.getByRole('heading', { name: 'Back in the client app' }).waitFor();
      const arrived = world.callback.received.at(-1)!;
      assert.equal(arrived.searchParams.get('oauth_problem'), 'user_refused');
      assert.equal(arrived.searchParams.has('oauth_verifier'), false);
      assert.equal((await client.finishRaw('anything')).status, 401);
    });

    it('for oob, shows the verifier to give to the app, which then gets its token', async () => {
      const client = clientFor(printer);
      const { page } = await world.context();
      await page.goto(await client.start('oob'));
      await signIn(page, 'alice');
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.getByRole('heading', { name: 'Give this code to Photo Printer' }).waitFor();
      await screenshot(page, 'verifier');
      const verifier = (await page.locator('#verifier-code').textContent())!.trim();
      const api = await client.finish(verifier);
      assert.equal((await api(`${world.server.url}/api/me`)).status, 200);
    });

    it('for oob on a constrained device, shows a short grouped code that works when typed', async () => {
      const tv = await world.server.provider.clients.register({
        name: 'Living Room TV',
        description: 'Plays your albums as a slideshow.',
        constrainedDevice: true,
      });
      const client = clientFor(tv);
      const { page } = await world.context({ width: 390 });
      await page.goto(await client.start('oob'));
      await signIn(page, 'alice');
      await page.getByRole('button', { name: 'Allow' }).click();
      const code = (await page.locator('#verifier-code').textContent())!.trim();
      assert.match(code, /^[A-Z0-9]{4}-[A-Z0-9]{4}$/);
      await screenshot(page, 'verifier-typing-phone');
      const api = await client.finish(code.replace('-', ' ').toLowerCase());
      assert.equal((await api(`${world.server.url}/api/me`)).status, 200);
    });

    it('for oob, Deny shows a page saying the app got no access', async () => {
      const client = clientFor(printer);
      const { page } = await world.context();
      await page.goto(await client.start('oob'));
      await signIn(page, 'alice');
      await page.getByRole('button', { name: 'Deny' }).click();
      await page.getByRole('heading', { name: 'Photo Printer was not given access' }).waitFor();
      await screenshot(page, 'denied');
    });

    it('can be done with the keyboard alone, choosing a shorter lifetime', async () => {
      const client = clientFor(printer);
      const { page } = await world.context();
      await page.goto(await client.start(world.callback.url));
      await page.getByLabel('Username').focus();
      await page.keyboard.type('alice');
      await page.keyboard.press('Tab');
      await page.keyboard.type(PASSWORD);
      await page.keyboard.press('Enter');
      await page.getByLabel('Access lasts').waitFor();
      await page.getByLabel('Access lasts').focus();
      await page.keyboard.press('ArrowDown'); // 1 hour
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate('document.activeElement?.textContent'), 'Allow');
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Back in the client app' }).waitFor();
      const stored = await world.server.store.temporaryCredentials.find(client.temporary!.token);
      assert.equal(stored?.approvedLifetime, 3600);
    });

    it('reads on a phone-width screen without sideways scrolling', async () => {
      const client = clientFor(printer);
      const { page } = await world.context({ width: 360 });
      await page.goto(await client.start(world.callback.url));
      await signIn(page, 'alice');
      await page.getByRole('button', { name: 'Allow' }).waitFor();
      await screenshot(page, 'consent-phone');
      const overflow = (await page.evaluate(
        'document.documentElement.scrollWidth - window.innerWidth',
      )) as number;
      assert.ok(overflow <= 0, `page is ${overflow}px wider than the screen`);
    });

    it('shows a clear page for an unknown request, with the right status', async () => {
      const { page } = await world.context();
      const response = await page.goto(`${world.server.url}/oauth/authorize?oauth_token=made-up`);
      assert.equal(response?.status(), 404);
      await page.getByRole('heading', { name: 'We can’t find this request' }).waitFor();
      await screenshot(page, 'error');
    });

    it('served every page of this suite with frame-ancestors none, X-Frame-Options DENY and a strict CSP', async () => {
      await assertEveryDocumentProtected(world.documents);
    });
  },
);
