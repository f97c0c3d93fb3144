// The client SDK against a real Latchkey server: token credentials with a session (the OAuth
// Session extension) are read by processTokenCredentialsResponse, renewed with
// requestTokenRenewal, and ended with invalidateToken.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  createSigningFetch,
  invalidateToken,
  OAuthResponseError,
  processTemporaryCredentialsResponse,
  processTokenCredentialsResponse,
  requestTemporaryCredentials,
  requestTokenCredentials,
  requestTokenRenewal,
} from '../../src/client/index.ts';
import type { ClientCredentials, TokenCredentials } from '../../src/client/index.ts';
import { localOwnerRecord } from '../support/owners.ts';
import { startServer } from '../support/server.ts';
import type { TestServer } from '../support/server.ts';

let server: TestServer;
let client: ClientCredentials;
let ownerId: string;
before(async () => {
  server = await startServer();
  const registered = await server.provider.clients.register({
    name: 'Session App',
    sessionExtension: true,
  });
  client = { key: registered.key, secret: registered.secret };
  const owner = await server.store.owners.create(
    localOwnerRecord({ id: 'owner-sdk', username: 'sdk', passwordHash: 'scrypt$unused' }),
  );
  ownerId = owner.id;
});
after(() => server.close());

async function tokenCredentials() {
  const temporary = await processTemporaryCredentialsResponse(
    await requestTemporaryCredentials(`${server.url}/oauth/request_token`, { client }),
  );
  const { verifier } = await server.provider.authorization.approve(temporary.token, ownerId);
  return processTokenCredentialsResponse(
    await requestTokenCredentials(`${server.url}/oauth/access_token`, {
      client,
      temporary,
      verifier,
    }),
  );
}

const me = async (token: TokenCredentials) => {
  const answer = await createSigningFetch({ client, token })(`${server.url}/api/me`);
  return [answer.status, new URLSearchParams(await answer.text()).get('oauth_problem')];
};

describe('client SDK: sessions and invalidation', () => {
  it('reads the session, renews with its handle, and the old credentials stop working', async () => {
    const first = await tokenCredentials();
    assert.equal(first.session?.expiresIn, 3600);
    assert.equal(first.session?.authorizationExpiresIn, 365 * 24 * 3600);
    const renewed = await processTokenCredentialsResponse(
      await requestTokenRenewal(`${server.url}/oauth/access_token`, {
        client,
        token: first,
        sessionHandle: first.session!.handle,
      }),
    );
    assert.notEqual(renewed.token, first.token);
    assert.equal(renewed.session?.handle, first.session?.handle);
    assert.deepEqual(await me(renewed), [200, null]);
    assert.deepEqual(await me(first), [401, 'token_rejected']);
  });

  it('ends a token with invalidateToken; a second call is refused with token_revoked', async () => {
    const token = await tokenCredentials();
    const endpoint = `${server.url}/oauth/invalidate_token`;
    await invalidateToken(endpoint, { client, token });
    assert.deepEqual(await me(token), [401, 'token_revoked']);
    const again = await invalidateToken(endpoint, { client, token }).then(
      () => assert.fail('expected a refusal'),
      (error: unknown) => error,
    );
    assert.ok(again instanceof OAuthResponseError);
    assert.equal(again.problem, 'token_revoked');
  });
});
