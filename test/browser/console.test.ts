// The operator console in Chromium: sign in with an admin token, find a client by search,
// disable it (its next signed request is refused), revoke one token, filter the audit trail,
// and an auditor sees no button that changes anything. Takes the console's screenshots.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { consolePlugin } from '../../src/web/console/index.ts';
import {
  FlowClient,
  PASSWORD,
  assertEveryDocumentProtected,
  needsChromium,
  screenshot,
  signIn,
  startBrowserWorld,
  type BrowserWorld,
} from './support.ts';

const CONSOLE = '/admin/console';

describe('Operator console in a browser', { skip: needsChromium }, () => {
  let world: BrowserWorld;
  let operatorToken: string;
  let auditorToken: string;
  before(async () => {
    world = await startBrowserWorld({ app: { console: consolePlugin } });
    const { provider } = world.server;
    await provider.owners.create('alice', PASSWORD);
    operatorToken = (await provider.admin.tokens.add('ops-oncall', 'operator')).token;
    auditorToken = (await provider.admin.tokens.add('compliance', 'auditor')).token;
    for (const name of ['Calendar Sync', 'Weather Station', 'Team Wiki']) {
      await provider.clients.register({ name, description: `${name} for the office.` });
    }
  });
  after(() => world?.close());

  /** A client alice connected, and its signing fetch. */
  async function connected(name: string) {
    const registered = await world.server.provider.clients.register({
      name,
      description: `${name} for the office.`,
      website: 'https://example.com',
    });
    const client = new FlowClient(world.server, { key: registered.key, secret: registered.secret });
    const { page } = await world.context();
    await page.goto(await client.start(world.callback.url));
    await signIn(page, 'alice');
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.getByRole('heading', { name: 'Back in the client app' }).waitFor();
    const api = await client.finish(
      world.callback.received.at(-1)!.searchParams.get('oauth_verifier')!,
    );
    assert.equal((await api(`${world.server.url}/api/me`)).status, 200);
    return { key: registered.key, api };
  }

  async function consoleAs(token: string) {
    const { page } = await world.context({ width: 1200 });
    await page.goto(`${world.server.url}${CONSOLE}/clients`);
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    await page.getByLabel('Admin token').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Clients' }).waitFor();
    return page;
  }

  it('finds a client, disables it, revokes a token of another, and filters the audit trail', async () => {
    const printer = await connected('Photo Printer');
    const reader = await connected('News Reader');
    const page = await consoleAs(operatorToken);
    await screenshot(page, 'console-clients');

    await page.getByLabel('Search').fill('print');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.getByRole('link', { name: 'Photo Printer' }).waitFor();
    assert.equal(await page.locator('#clients li').count(), 1);
    await page.getByRole('link', { name: 'Photo Printer' }).click();
    await page.getByRole('heading', { name: 'Photo Printer' }).waitFor();
    await page.locator('#tokens').waitFor();
    await screenshot(page, 'console-client');

    await page.getByRole('link', { name: 'Disable' }).click();
    await page.getByRole('heading', { name: 'Disable Photo Printer?' }).waitFor();
    await page.getByRole('button', { name: 'Disable the client' }).click();
    await page.getByText('The client is disabled.').waitFor();
    const refused = await printer.api(`${world.server.url}/api/me`);
    assert.equal(refused.status, 401);
    assert.match(await refused.text(), /oauth_problem=consumer_key_rejected/);

    await page.goto(`${world.server.url}${CONSOLE}/clients?q=news`);
    await page.getByRole('link', { name: 'News Reader' }).click();
    await page.getByRole('link', { name: 'Revoke' }).click();
    await page.getByRole('button', { name: 'Revoke the token' }).click();
    await page.getByText('The token is revoked.').waitFor();
    assert.equal((await reader.api(`${world.server.url}/api/me`)).status, 401);
    assert.ok(reader.key !== printer.key);

    await page.getByRole('link', { name: 'Audit trail', exact: true }).click();
    await page.getByLabel('Event').fill('client.disabled');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.locator('#events').waitFor();
    const rows = await page.locator('#events tbody tr').allTextContents();
    assert.equal(rows.length, 1);
    assert.match(rows[0]!, /client\.disabled/);
    assert.match(rows[0]!, /ops-oncall/);
    await screenshot(page, 'console-audit');
    assert.deepEqual(
      await world.server.provider.clients.get(printer.key).then((c) => c.disabled),
      true,
    );
    await assertEveryDocumentProtected(world.documents);
  });

  it('shows an auditor no button that changes anything', async () => {
    const viewer = await connected('Recipe Box');
    const page = await consoleAs(auditorToken);
    await page.goto(`${world.server.url}${CONSOLE}/clients/${viewer.key}`);
    await page.locator('#tokens').waitFor();
    for (const name of ['Disable', 'Enable', 'Rotate secret', 'Delete', 'Revoke']) {
      assert.equal(await page.getByRole('link', { name, exact: true }).count(), 0, name);
    }
    await page.goto(`${world.server.url}${CONSOLE}/owners`);
    assert.equal(await page.getByRole('link', { name: 'Revoke every token' }).count(), 0);
  });
});
