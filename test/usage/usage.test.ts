// A client's usage, as its developer sees it: a counted load (verified requests from known
// owners, failures of known problems, a made-up key that counts for no one) is found in the
// store, in `latchkey clients usage`, and in the portal's table and chart (real Chromium).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { signRequest } from '../../src/client/index.ts';
import type { Client, TokenCredential } from '../../src/store/index.ts';
import { baseEnv, runCli } from '../cli/run-cli.ts';
import {
  PASSWORD,
  needsChromium,
  screenshot,
  signIn,
  startBrowserWorld,
} from '../browser/support.ts';
import type { BrowserWorld } from '../browser/support.ts';

const today = () => new Date().toISOString().slice(0, 10);

describe('Usage for client developers', { skip: needsChromium }, () => {
  let world: BrowserWorld;
  let client: Client;
  const tokens: TokenCredential[] = [];
  const ownerIds: string[] = [];

  function signed(token: TokenCredential, secret = client.secret, key = client.key) {
    return signRequest({
      method: 'GET',
      url: `${world.server.url}/api/me`,
      client: { key, secret },
      token: { token: token.token, secret: token.secret },
    });
  }
  const send = (request: ReturnType<typeof signed>) =>
    fetch(request.url, { headers: request.headers });

  before(async () => {
    world = await startBrowserWorld();
    const dana = await world.server.provider.owners.create('dana', PASSWORD);
    client = await world.server.provider.clients.register({
      name: 'Counted App',
      developerId: dana.id,
    });
    for (const name of ['olive', 'oscar', 'otto']) {
      const owner = await world.server.provider.owners.create(name, PASSWORD);
      ownerIds.push(owner.id);
      tokens.push(
        await world.server.provider.tokens.issue({
          clientKey: client.key,
          ownerId: owner.id,
          scope: 'read',
        }),
      );
    }
    // 7 verified requests from the 3 owners (3, 2, 2).
    const verified = [0, 0, 0, 1, 1, 2, 2].map((owner) => signed(tokens[owner]!));
    for (const request of verified) assert.equal((await send(request)).status, 200);
    // 2 signature_invalid, 1 nonce_used (a replay of a verified request).
    assert.equal((await send(signed(tokens[0]!, 'wrong secret'))).status, 401);
    assert.equal((await send(signed(tokens[1]!, 'wrong secret'))).status, 401);
    assert.equal((await send(verified[0]!)).status, 401);
    // A key no client has counts for no one.
    assert.equal((await send(signed(tokens[0]!, 'x', 'made-up-key'))).status, 401);
  });
  after(() => world?.close());

  it('keeps the counts in the store: requests, failures by problem, distinct owners, last use', async () => {
    const days = await world.server.provider.usage.days(client.key, 30); // writes what is counted
    assert.equal(days.length, 30);
    assert.equal(days.at(-1)!.day, today());
    const stored = await world.server.store.usage.days(client.key, today());
    assert.equal(stored.length, 1);
    const [day] = stored;
    assert.equal(day!.requests, 7);
    assert.deepEqual(day!.failures, { signature_invalid: 2, nonce_used: 1 });
    assert.equal(day!.owners, 3);
    assert.ok(day!.lastUsedAt !== null && day!.lastUsedAt <= Date.now());
    assert.deepEqual(await world.server.store.usage.days('made-up-key', '2000-01-01'), []);
  });

  it('prints them with `latchkey clients usage KEY`, as a table and as JSON', async () => {
    await world.server.provider.usage.days(client.key, 1);
    const env = {
      ...baseEnv(),
      LATCHKEY_DATABASE: world.server.path,
      LATCHKEY_LOG_LEVEL: 'silent',
    };
    const json = await runCli(['clients', 'usage', client.key, '--days', '7', '--json'], env);
    assert.equal(json.code, 0, json.stderr);
    const printed = JSON.parse(json.stdout) as {
      client: string;
      days: { day: string; requests: number; failures: Record<string, number>; owners: number }[];
    };
    assert.equal(printed.client, client.key);
    assert.equal(printed.days.length, 7);
    assert.deepEqual(
      { ...printed.days.at(-1)!, lastUsedAt: undefined },
      {
        day: today(),
        requests: 7,
        failures: { signature_invalid: 2, nonce_used: 1 },
        owners: 3,
        lastUsedAt: undefined,
      },
    );
    const text = await runCli(['clients', 'usage', client.key], env);
    assert.equal(text.code, 0, text.stderr);
    const row = text.stdout.split('\n').find((line) => line.startsWith(today()))!;
    assert.match(row, /^\S+\s+7\s+3\s+3\s+\S+\s+signature_invalid 2, nonce_used 1$/);
    assert.match(text.stdout, /last 30 days \(UTC\): 7 requests, 3 failures\./);
    const unknown = await runCli(['clients', 'usage', 'no-such-client'], env);
    assert.notEqual(unknown.code, 0);
    const bad = await runCli(['clients', 'usage', client.key, '--days', 'many'], env);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /--days takes a whole number/);
  });

  it("shows them on the app's page: a chart drawn on the server and a table", async () => {
    const { page, cspViolations } = await world.context();
    await page.goto(`${world.server.url}/signin`);
    await signIn(page, 'dana');
    await page.goto(`${world.server.url}/developer/apps/${client.key}`);
    await page.getByRole('heading', { name: 'Usage' }).waitFor();
    const cells = await page
      .locator('#usage-table tbody tr')
      .first()
      .locator('td')
      .allTextContents();
    assert.deepEqual(cells.slice(0, 5), [
      today(),
      '7',
      '3',
      'signature_invalid 2, nonce_used 1',
      '3',
    ]);
    const chart = page.getByRole('img', { name: /Requests per day/ });
    assert.equal(await chart.locator('rect').count(), 60); // 30 days, two bars each
    const bar = chart.locator('g').last();
    assert.equal(
      await bar.locator('title').textContent(),
      `${today()}: 7 requests, 3 failures, 3 owners`,
    );
    assert.deepEqual(cspViolations, []);
    await chart.scrollIntoViewIfNeeded();
    await screenshot(page, 'developer-usage');
  });

  it("shows another developer's app to no one else", async () => {
    await world.server.provider.owners.create('eve', PASSWORD);
    const { page } = await world.context();
    await page.goto(`${world.server.url}/signin`);
    await signIn(page, 'eve');
    const answer = await page.goto(`${world.server.url}/developer/apps/${client.key}`);
    assert.equal(answer?.status(), 404);
    assert.equal(await page.locator('#usage-table').count(), 0);
  });
});
