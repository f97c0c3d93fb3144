// The provider's prepared keys: kept with the credential records the store's read cache hands
// out (never by secret), and prepared afresh for records read afresh.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { RSA_SHA1, RSA_SHA256, prepareHmacKey, sharedSecretKey } from '../../src/protocol/index.ts';
import { createCredentialKeys } from '../../src/provider/verify/credential-keys.ts';
import { createSqliteStore } from '../../src/store/index.ts';
import type { Client, Store } from '../../src/store/index.ts';
import { newClient, newOwner, newToken } from '../stores/contract/fixtures.ts';
import { ED25519 } from '../support/own-signature-methods.ts';

const RSA_PUBLIC_KEY = readFileSync(new URL('../fixtures/rsa-public.pem', import.meta.url), 'utf8');

describe('The provider’s prepared keys', () => {
  let store: Store;
  let clientKey: string;
  let tokenKey: string;
  before(async () => {
    store = createSqliteStore({ path: ':memory:' });
    const owner = await store.owners.create(newOwner());
    clientKey = (await store.clients.create(newClient())).key;
    tokenKey = (await store.tokenCredentials.create(newToken(clientKey, owner.id))).token;
  });
  after(() => store.close());

  const read = async () => ({
    client: (await store.clients.find(clientKey))!,
    token: (await store.tokenCredentials.find(tokenKey))!,
  });

  it('prepares a secret pair once while the store hands out the same records', async () => {
    const keys = createCredentialKeys();
    const first = await read();
    const second = await read();
    assert.equal(second.token, first.token, 'the store cache hands out one record');
    const prepared = keys.prepared(first.client, first.token);
    assert.equal(keys.prepared(second.client, second.token), prepared);
    const expected = prepareHmacKey(
      'sha1',
      sharedSecretKey({ clientSecret: first.client.secret, tokenSecret: first.token.secret }),
    );
    assert.deepEqual(prepared.hmacKey('sha1'), expected);
    assert.equal(prepared.hmacKey('sha1'), prepared.hmacKey('sha1'));
  });

  it('prepares again for a client read afresh with a new secret, with the same token', async () => {
    const keys = createCredentialKeys();
    const before = await read();
    const old = keys.prepared(before.client, before.token);
    await store.clients.update(clientKey, { secret: 'a-rotated-secret-0c61' });
    const rotated: Client = (await store.clients.find(clientKey))!;
    const prepared = keys.prepared(rotated, before.token);
    assert.notEqual(prepared, old);
    assert.deepEqual(
      prepared.hmacKey('sha256'),
      prepareHmacKey(
        'sha256',
        sharedSecretKey({
          clientSecret: 'a-rotated-secret-0c61',
          tokenSecret: before.token.secret,
        }),
      ),
    );
  });

  it('prepares a client signing alone its own pair, once', async () => {
    const keys = createCredentialKeys();
    const { client, token } = await read();
    const alone = keys.prepared(client, undefined);
    assert.notEqual(alone, keys.prepared(client, token));
    assert.equal(keys.prepared(client, undefined), alone);
    assert.deepEqual(
      alone.hmacKey('sha1'),
      prepareHmacKey('sha1', sharedSecretKey({ clientSecret: client.secret, tokenSecret: '' })),
    );
  });

  it('parses a public key once per PEM text, and a bad one as none', async () => {
    const keys = createCredentialKeys();
    const { client } = await read();
    const withKey = { ...client, publicKey: RSA_PUBLIC_KEY };
    const parsed = keys.publicKey(withKey, RSA_SHA1);
    assert.equal(parsed?.asymmetricKeyType, 'rsa');
    assert.equal(keys.publicKey({ ...withKey }, RSA_SHA256), parsed);
    assert.equal(keys.publicKey({ ...client, publicKey: 'not a key' }, RSA_SHA1), undefined);
    assert.equal(keys.publicKey({ ...client, publicKey: null }, RSA_SHA1), undefined);
  });

  it('parses a key for the key type of the method asking: an RSA key is none for ED25519', async () => {
    const keys = createCredentialKeys();
    const { client } = await read();
    const withKey = { ...client, publicKey: RSA_PUBLIC_KEY };
    assert.equal(keys.publicKey(withKey, RSA_SHA1)?.asymmetricKeyType, 'rsa');
    assert.equal(keys.publicKey(withKey, ED25519), undefined);
  });
});
