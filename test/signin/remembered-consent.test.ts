import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { requestTokenCredentials } from '../../src/client/index.ts';
import { BASE, authorizePath, connect, injectFetch, startWeb, text } from '../web/support.ts';
import type { WebWorld } from '../web/support.ts';

describe('remembered consent (rememberConsent: same-scope)', () => {
  let world: WebWorld;
  before(async () => {
    world = await startWeb();
    await world.owner('alice');
  });
  after(() => world.close());

  async function signedIn() {
    const browser = world.browser();
    await browser.signIn('alice');
    return browser;
  }

  it('skips the consent page after one Allow, Connected apps shows it, and stopping it asks again', async () => {
    const client = await world.client({ rememberConsent: 'same-scope' });
    const browser = await signedIn();
    const first = await browser.get(authorizePath(await world.temporary(client)));
    assert.match(text(first.body), /This app remembers your answer/);
    await connect(world, browser, client);
    const again = await browser.get(authorizePath(await world.temporary(client)));
    assert.equal(again.statusCode, 303);
    assert.ok(new URL(String(again.headers.location)).searchParams.get('oauth_verifier'));

    const apps = await browser.get('/account/apps');
    assert.match(
      text(apps.body),
      /Approved automatically since .*Photo Printer|Photo Printer Approved automatically since/,
    );
    // CSRF-protected: a form without the page's token is refused.
    const forged = await browser.post('/account/apps/forget', {
      client_key: client.key,
      _csrf: 'x',
    });
    assert.equal(forged.statusCode, 403);
    const stopped = await browser.post('/account/apps/forget', { client_key: client.key }, apps);
    assert.equal(stopped.statusCode, 303);
    assert.match(
      text((await browser.get(String(stopped.headers.location))).body),
      /will ask you again/,
    );
    const asked = await browser.get(authorizePath(await world.temporary(client)));
    assert.equal(asked.statusCode, 200);
    assert.match(text(asked.body), /Photo Printer wants to use your account/);
    const audited = (await world.provider.audit.list({ clientKey: client.key })).map(
      (e) => e.event,
    );
    assert.ok(audited.includes('consent.remembered'));
    assert.ok(audited.includes('consent.forgotten'));
    assert.ok(audited.includes('authorization.automatic'));
  });

  it('asks again for a scope beyond what was allowed', async () => {
    const client = await world.client({ rememberConsent: 'same-scope' });
    const browser = await signedIn();
    const temporary = await world.temporary(client, undefined, 'read');
    const page = await browser.get(authorizePath(temporary));
    await browser.post(
      '/oauth/authorize',
      { oauth_token: temporary.token, decision: 'allow' },
      page,
    );
    const wider = await browser.get(
      authorizePath(await world.temporary(client, undefined, 'read write')),
    );
    assert.equal(wider.statusCode, 200);
  });

  it('is off by default: a client that did not ask is asked every time', async () => {
    const client = await world.client();
    const browser = await signedIn();
    await connect(world, browser, client);
    const again = await browser.get(authorizePath(await world.temporary(client)));
    assert.equal(again.statusCode, 200);
    assert.deepEqual(
      await world.store.consents
        .list((await world.store.owners.findByUsername('alice'))!.id)
        .then((rows) => rows.filter((row) => row.clientKey === client.key)),
      [],
    );
  });
});

describe('who the owner is, in the token response (tokenResponseIdentity)', () => {
  let world: WebWorld;
  before(async () => {
    world = await startWeb();
    await world.owner('alice');
  });
  after(() => world.close());

  async function tokenReply(tokenResponseIdentity: boolean) {
    const client = await world.client({ tokenResponseIdentity });
    const browser = world.browser();
    await browser.signIn('alice');
    const temporary = await world.temporary(client);
    const page = await browser.get(authorizePath(temporary));
    const allowed = await browser.post(
      '/oauth/authorize',
      { oauth_token: temporary.token, decision: 'allow' },
      page,
    );
    const verifier = new URL(String(allowed.headers.location)).searchParams.get('oauth_verifier')!;
    const response = await requestTokenCredentials(`${BASE}/oauth/access_token`, {
      client: { key: client.key, secret: client.secret },
      temporary,
      verifier,
      fetch: injectFetch(world.app),
    });
    return new URLSearchParams(await response.text());
  }

  it('adds user_id (the subject) and screen_name for a client registered with it', async () => {
    const alice = (await world.store.owners.findByUsername('alice'))!;
    const body = await tokenReply(true);
    assert.equal(body.get('user_id'), alice.subject);
    assert.equal(body.get('screen_name'), 'alice');
    assert.ok(body.get('oauth_token'));
  });

  it('answers as RFC 5849 does by default', async () => {
    const body = await tokenReply(false);
    assert.deepEqual([...body.keys()].sort(), ['oauth_token', 'oauth_token_secret']);
  });

  it('is carried by export and import with remembered consent', async () => {
    const client = await world.client({
      tokenResponseIdentity: true,
      rememberConsent: 'same-scope',
    });
    const records = [];
    for await (const record of world.provider.transfer.export()) records.push(record);
    const exported = records.find(
      (record) => record.kind === 'client' && (record as { key: string }).key === client.key,
    ) as Record<string, unknown>;
    assert.equal(exported.tokenResponseIdentity, true);
    assert.equal(exported.rememberConsent, 'same-scope');
  });
});
