// The developer portal with a server's own public-key method (ED25519, added with the
// registry's `with()`): the form offers it, asks for its key, takes only a key of its kind,
// and registers the app with no client secret, as it does for the RSA methods.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { SignatureMethodRegistry } from '../../src/protocol/index.ts';
import { ED25519 } from '../support/own-signature-methods.ts';
import { startWeb, text } from './support.ts';
import type { Browser, WebWorld } from './support.ts';

const ED_PUBLIC = generateKeyPairSync('ed25519')
  .publicKey.export({ type: 'spki', format: 'pem' })
  .toString();
const RSA_PUBLIC = readFileSync(new URL('../fixtures/rsa-public.pem', import.meta.url), 'utf8');

describe('Developer portal with a server’s own public-key method', () => {
  let world: WebWorld;
  let browser: Browser;
  before(async () => {
    world = await startWeb({
      policy: { signatureMethods: new SignatureMethodRegistry().with(ED25519) },
    });
    await world.owner('dev');
    browser = world.browser();
    await browser.signIn('dev');
  });
  after(() => world.close());

  async function register(fields: Record<string, string>) {
    const page = await browser.get('/developer/apps/new');
    return browser.post('/developer/apps', new URLSearchParams(fields), page);
  }

  it('offers the method, and names it among those that sign with a private key', async () => {
    const page = await browser.get('/developer/apps/new');
    assert.match(page.body, /name="signature_methods" value="ED25519"/);
    assert.match(text(page.body), /RSA-SHA512, ED25519 sign with your private key/);
  });

  it('asks for its key when it is chosen without one (422)', async () => {
    const reply = await register({ name: 'Keyless', signature_methods: 'ED25519' });
    assert.equal(reply.statusCode, 422);
    assert.match(text(reply.body), /The ED25519 signature methods need your ED25519 public key/);
  });

  it('refuses a key of another kind (422, nothing registered)', async () => {
    const reply = await register({
      name: 'Wrong Key',
      signature_methods: 'ED25519',
      public_key: RSA_PUBLIC,
    });
    assert.equal(reply.statusCode, 422);
    assert.match(text(reply.body), /not a PEM ED25519 public key/);
    assert.equal((await world.provider.clients.list()).length, 0);
  });

  it('registers the app with its key and no client secret, and shows the key', async () => {
    const reply = await register({
      name: 'Ed App',
      signature_methods: 'ED25519',
      public_key: ED_PUBLIC,
    });
    assert.equal(reply.statusCode, 201);
    assert.match(text(reply.body), /signs with its ED25519 key only, so it has no client secret/);
    const [client] = await world.provider.clients.list();
    assert.equal(client?.secret, '');
    const page = await browser.get(`/developer/apps/${encodeURIComponent(client!.key)}`);
    assert.match(text(page.body), /ED25519 public key/);
  });
});
