import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { createSigningFetch } from '../../src/client/index.ts';
import { BASE, injectFetch, startWeb, text } from './support.ts';
import type { Browser, WebWorld } from './support.ts';

const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8');
const RSA_PUBLIC_KEY = fixture('rsa-public.pem');
const RSA_PRIVATE_KEY = fixture('rsa-private.pem');
const CERTIFICATE = fixture('rsa-certificate.pem');

function credential(html: string, id: string): string {
  const match = new RegExp(`<output class="credential" id="${id}"[^>]*>([^<]+)</output>`).exec(
    html,
  );
  if (match === null) throw new Error(`no ${id} on the page`);
  return match[1]!;
}

describe('Developer portal (for the client developer)', () => {
  let world: WebWorld;
  before(async () => {
    world = await startWeb();
    await world.owner('dev');
    await world.owner('other');
  });
  after(() => world.close());

  async function signedIn(username = 'dev') {
    const browser = world.browser();
    await browser.signIn(username);
    return browser;
  }

  async function register(browser: Browser, fields: Record<string, string | string[]>) {
    const page = await browser.get('/developer/apps/new');
    const form = new URLSearchParams();
    for (const [name, value] of Object.entries(fields)) {
      for (const item of [value].flat()) form.append(name, item);
    }
    return browser.post('/developer/apps', form, page);
  }

  it('sends a signed-out visitor to sign in', async () => {
    const reply = await world.browser().get('/developer');
    assert.equal(reply.statusCode, 303);
  });

  it('registers an app and shows its client key and secret once (201)', async () => {
    const browser = await signedIn();
    const reply = await register(browser, {
      name: 'Weather Widget',
      description: 'Shows your forecasts.',
      website: 'https://weather.example',
      callbacks: 'https://weather.example/cb\nhttps://weather.example/cb2',
      signature_methods: ['HMAC-SHA1', 'HMAC-SHA256'],
    });
    assert.equal(reply.statusCode, 201);
    assert.match(text(reply.body), /Copy the client secret now\. It is shown only this once/);
    const key = credential(reply.body, 'client-key');
    const secret = credential(reply.body, 'client-secret');
    const client = await world.provider.clients.get(key);
    assert.equal(client.secret, secret);
    assert.equal(client.developerId, (await world.provider.owners.get('dev')).id);
    assert.deepEqual(client.callbacks, [
      'https://weather.example/cb',
      'https://weather.example/cb2',
    ]);
    assert.deepEqual(client.signatureMethods, ['HMAC-SHA1', 'HMAC-SHA256']);
  });

  it('gives credentials that make a working signed request', async () => {
    const browser = await signedIn();
    const reply = await register(browser, { name: 'Two Legged', signature_methods: 'HMAC-SHA1' });
    const api = createSigningFetch({
      client: {
        key: credential(reply.body, 'client-key'),
        secret: credential(reply.body, 'client-secret'),
      },
      fetch: injectFetch(world.app),
    });
    const response = await api(`${BASE}/oauth/request_token`, {
      method: 'POST',
      protocolParameters: { oauth_callback: 'oob' },
    });
    assert.equal(response.status, 200);
    assert.match(await response.text(), /oauth_callback_confirmed=true/);
  });

  it('never shows the secret again on the app page', async () => {
    const browser = await signedIn();
    const created = await register(browser, {
      name: 'Secret Keeper',
      signature_methods: 'HMAC-SHA1',
    });
    const key = credential(created.body, 'client-key');
    const secret = credential(created.body, 'client-secret');
    const page = await browser.get(`/developer/apps/${key}`);
    assert.equal(page.statusCode, 200);
    assert.equal(page.body.includes(secret), false);
    assert.match(text(page.body), /Hidden\. It was shown once; rotate it if you lost it\./);
  });

  it('rotates the secret: shows the new one once, and the old one stops working', async () => {
    const browser = await signedIn();
    const created = await register(browser, { name: 'Rotator', signature_methods: 'HMAC-SHA1' });
    const key = credential(created.body, 'client-key');
    const old = credential(created.body, 'client-secret');
    const page = await browser.get(`/developer/apps/${key}`);
    const rotated = await browser.post(`/developer/apps/${key}/secret`, {}, page);
    assert.equal(rotated.statusCode, 200);
    const fresh = credential(rotated.body, 'client-secret');
    assert.notEqual(fresh, old);
    const withOld = createSigningFetch({
      client: { key, secret: old },
      fetch: injectFetch(world.app),
    });
    const refused = await withOld(`${BASE}/oauth/request_token`, {
      method: 'POST',
      protocolParameters: { oauth_callback: 'oob' },
    });
    assert.equal(refused.status, 401);
  });

  it('registers an RSA app with its public key and shows the key on the app page', async () => {
    const browser = await signedIn();
    const created = await register(browser, {
      name: 'RSA App',
      signature_methods: 'RSA-SHA1',
      public_key: RSA_PUBLIC_KEY,
    });
    assert.equal(created.statusCode, 201);
    assert.match(text(created.body), /signs with its RSA key only, so it has no client secret/);
    const page = await browser.get(`/developer/apps/${credential(created.body, 'client-key')}`);
    assert.match(page.body, /-----BEGIN PUBLIC KEY-----/);
  });

  it('asks for the RSA public key when an RSA method is chosen without one (422, values kept)', async () => {
    const browser = await signedIn();
    const reply = await register(browser, {
      name: 'Keyless',
      description: 'Kept text',
      signature_methods: 'RSA-SHA256',
    });
    assert.equal(reply.statusCode, 422);
    assert.match(text(reply.body), /The RSA signature methods need your RSA public key/);
    assert.match(reply.body, /Kept text<\/textarea>/);
  });

  it('refuses a callback that is not an absolute URI, naming it', async () => {
    const browser = await signedIn();
    const reply = await register(browser, {
      name: 'Bad Callback',
      callbacks: 'not a uri',
      signature_methods: 'HMAC-SHA1',
    });
    assert.equal(reply.statusCode, 422);
    assert.match(text(reply.body), /Not an absolute URI a browser can be sent to: not a uri/);
  });

  it('records a constrained-device app', async () => {
    const browser = await signedIn();
    const created = await register(browser, {
      name: 'Kiosk',
      signature_methods: 'HMAC-SHA1',
      constrained_device: 'yes',
    });
    assert.equal(
      (await world.provider.clients.get(credential(created.body, 'client-key'))).constrainedDevice,
      true,
    );
  });

  it('lists only the developer’s own apps, and another account gets 404 on an app page', async () => {
    const mine = await signedIn('dev');
    const created = await register(mine, { name: 'Private App', signature_methods: 'HMAC-SHA1' });
    const key = credential(created.body, 'client-key');
    assert.match(text((await mine.get('/developer')).body), /Private App/);
    const other = await signedIn('other');
    assert.doesNotMatch(text((await other.get('/developer')).body), /Private App/);
    assert.equal((await other.get(`/developer/apps/${key}`)).statusCode, 404);
    assert.equal((await other.get(`/developer/apps/${key}/delete`)).statusCode, 404);
  });

  it('deletes an app after a confirmation page, and its credentials stop working', async () => {
    const browser = await signedIn();
    const created = await register(browser, {
      name: 'Short Lived',
      signature_methods: 'HMAC-SHA1',
    });
    const key = credential(created.body, 'client-key');
    const secret = credential(created.body, 'client-secret');
    const confirm = await browser.get(`/developer/apps/${key}/delete`);
    assert.match(text(confirm.body), /Delete Short Lived\?/);
    const reply = await browser.post(`/developer/apps/${key}/delete`, {}, confirm);
    assert.equal(reply.statusCode, 303);
    assert.match(text((await browser.get('/developer?deleted=1')).body), /The app was deleted/);
    const api = createSigningFetch({ client: { key, secret }, fetch: injectFetch(world.app) });
    const refused = await api(`${BASE}/oauth/request_token`, {
      method: 'POST',
      protocolParameters: { oauth_callback: 'oob' },
    });
    assert.equal(refused.status, 401);
    assert.match(await refused.text(), /consumer_key_unknown/);
  });

  describe('editing an app after registration', () => {
    async function edit(browser: Browser, key: string, fields: Record<string, string | string[]>) {
      const page = await browser.get(`/developer/apps/${encodeURIComponent(key)}/edit`);
      const form = new URLSearchParams();
      for (const [name, value] of Object.entries(fields)) {
        for (const item of [value].flat()) form.append(name, item);
      }
      return browser.post(`/developer/apps/${encodeURIComponent(key)}`, form, page);
    }

    it('shows the form filled in with what the app registered', async () => {
      const browser = await signedIn();
      const created = await register(browser, {
        name: 'Editable',
        website: 'https://editable.example',
        callbacks: 'https://editable.example/cb',
        signature_methods: 'HMAC-SHA256',
      });
      const key = credential(created.body, 'client-key');
      const page = await browser.get(`/developer/apps/${key}/edit`);
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /value="Editable"/);
      assert.match(page.body, /value="https:\/\/editable\.example"/);
      assert.match(page.body, />https:\/\/editable\.example\/cb<\/textarea>/);
      assert.match(page.body, /value="HMAC-SHA256" checked/);
      assert.doesNotMatch(page.body, /value="HMAC-SHA1" checked/);
    });

    it('saves new callbacks, name and methods, obeyed on the next request (§2.1)', async () => {
      const browser = await signedIn();
      const created = await register(browser, {
        name: 'Moving',
        callbacks: 'https://old.example/cb',
        signature_methods: 'HMAC-SHA1',
      });
      const key = credential(created.body, 'client-key');
      const secret = credential(created.body, 'client-secret');
      const saved = await edit(browser, key, {
        name: 'Moved',
        callbacks: 'https://new.example/cb',
        signature_methods: ['HMAC-SHA1', 'HMAC-SHA256'],
      });
      assert.equal(saved.statusCode, 303);
      assert.equal(saved.headers.location, `/developer/apps/${key}?updated=1`);
      assert.match(
        text((await browser.get(`/developer/apps/${key}?updated=1`)).body),
        /Your changes were saved/,
      );
      const client = await world.provider.clients.get(key);
      assert.equal(client.name, 'Moved');
      assert.deepEqual(client.callbacks, ['https://new.example/cb']);
      assert.deepEqual(client.signatureMethods, ['HMAC-SHA1', 'HMAC-SHA256']);
      assert.equal(client.secret, secret, 'the secret stays the same');
      const ask = (callback: string) =>
        createSigningFetch({ client: { key, secret }, fetch: injectFetch(world.app) })(
          `${BASE}/oauth/request_token`,
          { method: 'POST', protocolParameters: { oauth_callback: callback } },
        );
      assert.equal((await ask('https://old.example/cb')).status, 400);
      assert.equal((await ask('https://new.example/cb')).status, 200);
    });

    it('replaces the RSA key with a certificate, and refuses a private key (422, nothing changed)', async () => {
      const browser = await signedIn();
      const created = await register(browser, {
        name: 'Keyed',
        signature_methods: 'RSA-SHA1',
        public_key: RSA_PUBLIC_KEY,
      });
      const key = credential(created.body, 'client-key');
      const refused = await edit(browser, key, {
        name: 'Keyed',
        signature_methods: 'RSA-SHA1',
        public_key: RSA_PRIVATE_KEY,
      });
      assert.equal(refused.statusCode, 422);
      assert.match(text(refused.body), /The app was not changed: That is a private key/);
      assert.equal((await world.provider.clients.get(key)).publicKey, RSA_PUBLIC_KEY.trim());
      const saved = await edit(browser, key, {
        name: 'Keyed',
        signature_methods: 'RSA-SHA1',
        public_key: CERTIFICATE,
      });
      assert.equal(saved.statusCode, 303);
      assert.equal((await world.provider.clients.get(key)).publicKey, CERTIFICATE.trim());
      assert.match(text((await browser.get(`/developer/apps/${key}`)).body), /RSA certificate/);
    });

    it('gives 404 to another account, for the form and for the post', async () => {
      const mine = await signedIn('dev');
      const created = await register(mine, { name: 'Not yours', signature_methods: 'HMAC-SHA1' });
      const key = credential(created.body, 'client-key');
      const other = await signedIn('other');
      assert.equal((await other.get(`/developer/apps/${key}/edit`)).statusCode, 404);
      const page = await other.get('/developer');
      const posted = await other.post(`/developer/apps/${key}`, { name: 'Taken' }, page);
      assert.equal(posted.statusCode, 404);
      assert.equal((await world.provider.clients.get(key)).name, 'Not yours');
    });

    it('tells the developer when the operator disabled the app', async () => {
      const browser = await signedIn();
      const created = await register(browser, {
        name: 'Switched off',
        signature_methods: 'HMAC-SHA1',
      });
      const key = credential(created.body, 'client-key');
      await world.provider.clients.setDisabled(key, true);
      assert.match(
        text((await browser.get(`/developer/apps/${key}`)).body),
        /This app is disabled by the operator of this server/,
      );
      assert.match(text((await browser.get('/developer')).body), /Switched off .*Disabled/s);
    });
  });
});
