// A change to a client on one instance is obeyed by the others (PostgreSQL + Redis, each
// instance with its own cache): disabling and enabling, new callbacks, a new RSA key. The test
// awaits the invalidation event on the other instance, then checks what it answers; no
// assertion on time.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createSigningFetch, requestTemporaryCredentials } from '../../src/client/index.ts';
import type { ClientCredentials, TokenCredentials } from '../../src/client/index.ts';
import { cacheReportOf } from '../../src/store/index.ts';
import { injectFetch } from '../web/support.ts';
import { RSA_PRIVATE_KEY, RSA_PUBLIC_KEY } from '../conformance/support/world.ts';
import type { Instance } from './support.ts';
import { servicesSkip, until, useDeployment } from './support.ts';

const skip = await servicesSkip();

async function callApi(instance: Instance, client: ClientCredentials, token?: TokenCredentials) {
  const api = createSigningFetch({ client, token, fetch: injectFetch(instance.app) });
  const response = await api('http://127.0.0.1/api/me');
  const body = await response.text();
  return { status: response.status, problem: new URLSearchParams(body).get('oauth_problem') };
}

/** Resolves once `instance` has received one more invalidation event than it had now. */
function nextInvalidation(instance: Instance): () => Promise<void> {
  const received = () => cacheReportOf(instance.store)?.received ?? 0;
  const before = received();
  return async () => {
    await until(5000, async () => (received() > before ? true : undefined));
  };
}

describe('A change to a client reaches every instance (Redis invalidation)', { skip }, () => {
  const deployment = useDeployment();

  async function twoInstances() {
    const first = await deployment.instance();
    const second = await deployment.instance();
    const registered = await first.provider.clients.register({
      name: 'Shared app',
      callbacks: ['https://old.example/cb'],
    });
    const owner = await first.provider.owners.create(`owner-${registered.key}`, 'a long password');
    const issued = await first.provider.tokens.issue({
      clientKey: registered.key,
      ownerId: owner.id,
    });
    const client = { key: registered.key, secret: registered.secret };
    const token = { token: issued.token, secret: issued.secret };
    for (const instance of [first, second]) {
      assert.equal((await callApi(instance, client, token)).status, 200); // cached on both
    }
    return { first, second, client, token };
  }

  it('a client disabled on one instance is refused by the other, and accepted again once enabled', async () => {
    const { first, second, client, token } = await twoInstances();
    let invalidated = nextInvalidation(second);
    await first.provider.clients.setDisabled(client.key, true);
    await invalidated();
    assert.deepEqual(await callApi(second, client, token), {
      status: 401,
      problem: 'consumer_key_rejected',
    });
    invalidated = nextInvalidation(second);
    await first.provider.clients.setDisabled(client.key, false);
    await invalidated();
    assert.equal((await callApi(second, client, token)).status, 200);
  });

  it('callbacks changed on one instance are obeyed by the other', async () => {
    const { first, second, client } = await twoInstances();
    const ask = (callback: string) =>
      requestTemporaryCredentials('http://127.0.0.1/oauth/request_token', {
        client,
        callback,
        fetch: injectFetch(second.app),
      });
    assert.equal((await ask('https://old.example/cb')).status, 200); // the client is cached
    const invalidated = nextInvalidation(second);
    await first.provider.clients.update(client.key, { callbacks: ['https://new.example/cb'] });
    await invalidated();
    assert.equal((await ask('https://old.example/cb')).status, 400);
    assert.equal((await ask('https://new.example/cb')).status, 200);
  });

  it('an RSA key replaced on one instance verifies on the other', async () => {
    const { first, second, client } = await twoInstances();
    const rsa = { key: client.key, privateKey: RSA_PRIVATE_KEY };
    const signed = async () => {
      const api = createSigningFetch({
        client: rsa,
        signatureMethod: 'RSA-SHA1',
        fetch: injectFetch(second.app),
      });
      return (await api('http://127.0.0.1/api/me')).status;
    };
    assert.equal(await signed(), 400); // no RSA key yet: signature_method_rejected
    const invalidated = nextInvalidation(second);
    await first.provider.clients.update(client.key, { publicKey: RSA_PUBLIC_KEY });
    await invalidated();
    assert.equal(await signed(), 200);
  });
});
