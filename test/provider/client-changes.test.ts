// A client after registration: its developer changes callbacks, methods and RSA key; an
// operator disables it (401 consumer_key_rejected on every endpoint, tokens kept) and enables
// it again. Each change is obeyed from the next request on.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { InputError } from '../../src/provider/index.ts';
import type { Client } from '../../src/store/index.ts';
import {
  PATHS,
  RSA_PRIVATE_KEY,
  RSA_PUBLIC_KEY,
  startWorld,
} from '../conformance/support/world.ts';
import type { World } from '../conformance/support/world.ts';
import { assertOk, assertProblem } from '../conformance/support/wire.ts';

const CERTIFICATE = readFileSync(
  new URL('../fixtures/rsa-certificate.pem', import.meta.url),
  'utf8',
);

let world: World;
before(async () => {
  world = await startWorld();
});
after(() => world.close());

const credentials = (client: Client) => ({ key: client.key, secret: client.secret });

describe('Disabling a client (401 consumer_key_rejected until enabled again)', () => {
  it('refuses every endpoint for a disabled client and its tokens, and accepts them again once enabled', async () => {
    const provider = world.server.provider;
    const client = await provider.clients.register({ name: 'Switchable' });
    const token = await provider.tokens.issue({ clientKey: client.key, ownerId: world.owner.id });
    const me = () =>
      world.call({
        signatureMethod: 'HMAC-SHA1',
        transmission: 'header',
        path: PATHS.me,
        client: credentials(client),
        token,
      });
    assertOk(await me());
    const temporary = await world.temporary('HMAC-SHA1', 'header', { client: credentials(client) });
    const verifier = await world.approve(temporary);

    const disabled = await provider.clients.setDisabled(client.key, true);
    assert.equal(disabled.disabled, true);
    assertProblem(await me(), 401, 'consumer_key_rejected');
    assertProblem(
      await world.call({
        signatureMethod: 'HMAC-SHA1',
        transmission: 'header',
        path: PATHS.requestToken,
        httpMethod: 'POST',
        client: credentials(client),
        protocolParameters: { oauth_callback: 'oob' },
      }),
      401,
      'consumer_key_rejected',
    );
    assertProblem(
      await world.exchange('HMAC-SHA1', 'header', temporary, verifier, credentials(client)),
      401,
      'consumer_key_rejected',
    );

    await provider.clients.setDisabled(client.key, false);
    assertOk(await me());
    assertOk(await world.exchange('HMAC-SHA1', 'header', temporary, verifier, credentials(client)));
  });

  it('answers a wrong signature from a disabled client with signature_invalid (only the client learns it is disabled)', async () => {
    const provider = world.server.provider;
    const client = await provider.clients.register({ name: 'Disabled, probed' });
    await provider.clients.setDisabled(client.key, true);
    const answer = await world.call({
      signatureMethod: 'HMAC-SHA1',
      transmission: 'header',
      path: PATHS.me,
      client: { key: client.key, secret: 'a guess' },
    });
    assertProblem(answer, 401, 'signature_invalid');
  });

  it('refuses the authorization page of a disabled client', async () => {
    const provider = world.server.provider;
    const client = await provider.clients.register({ name: 'Disabled before consent' });
    const temporary = await world.temporary('HMAC-SHA1', 'header', { client: credentials(client) });
    await provider.clients.setDisabled(client.key, true);
    await assert.rejects(provider.authorization.describe(temporary.token), {
      problem: 'consumer_key_rejected',
    });
  });
});

describe('Changing a client after registration', () => {
  it('obeys new callbacks on the next temporary credential request (§2.1)', async () => {
    const provider = world.server.provider;
    const client = await provider.clients.register({
      name: 'Moving app',
      callbacks: ['https://old.example/cb'],
    });
    await provider.clients.update(client.key, { callbacks: ['https://new.example/cb'] });
    const ask = (callback: string) =>
      world.call({
        signatureMethod: 'HMAC-SHA1',
        transmission: 'header',
        path: PATHS.requestToken,
        httpMethod: 'POST',
        client: credentials(client),
        protocolParameters: { oauth_callback: callback },
      });
    assertProblem(await ask('https://old.example/cb'), 400, 'parameter_rejected');
    assertOk(await ask('https://new.example/cb'));
  });

  it('replaces the RSA key with an X.509 certificate, which then verifies RSA-SHA1', async () => {
    const provider = world.server.provider;
    const previous = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const client = await provider.clients.register({
      name: 'Certificate app',
      signatureMethods: ['RSA-SHA1'],
      publicKey: previous.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    });
    const signed = () =>
      world.call({
        signatureMethod: 'RSA-SHA1',
        transmission: 'header',
        path: PATHS.me,
        client: { key: client.key, privateKey: RSA_PRIVATE_KEY },
      });
    assertProblem(await signed(), 401, 'signature_invalid');
    await provider.clients.update(client.key, { publicKey: CERTIFICATE });
    assert.equal((await provider.clients.get(client.key)).publicKey, CERTIFICATE);
    assertOk(await signed());
  });

  it('refuses a private key given as the RSA public key, naming publicKey', async () => {
    const provider = world.server.provider;
    const client = await provider.clients.register({ name: 'Careless' });
    await assert.rejects(
      provider.clients.update(client.key, { publicKey: RSA_PRIVATE_KEY }),
      (error) => {
        assert.ok(error instanceof InputError);
        assert.equal(error.field, 'publicKey');
        assert.match(error.message, /private key/);
        return true;
      },
    );
  });

  it('refuses to allow shared-secret methods for a client that has no secret', async () => {
    const provider = world.server.provider;
    const client = await provider.clients.register({
      name: 'RSA only',
      signatureMethods: ['RSA-SHA1'],
      publicKey: RSA_PUBLIC_KEY,
    });
    assert.equal(client.secret, '');
    await assert.rejects(provider.clients.update(client.key, { signatureMethods: [] }), {
      field: 'signatureMethods',
    });
  });

  it('never accepts HMAC or PLAINTEXT from a client without a secret, even when its methods allow them', async () => {
    const provider = world.server.provider;
    const client = await provider.clients.register({
      name: 'RSA only, widened in the store',
      signatureMethods: ['RSA-SHA1'],
      publicKey: RSA_PUBLIC_KEY,
    });
    await world.server.store.clients.update(client.key, { signatureMethods: [] });
    for (const method of ['HMAC-SHA1', 'PLAINTEXT'] as const) {
      const answer = await world.call({
        signatureMethod: method,
        transmission: 'header',
        path: PATHS.me,
        client: { key: client.key, secret: '' },
      });
      assertProblem(answer, 400, 'signature_method_rejected');
    }
  });
});
