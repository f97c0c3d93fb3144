// Two Latchkey servers on one SQLite file (two processes' worth: two connections, two
// providers, two read caches): a token its client invalidates on one is refused on the other
// on the next request, since the read cache follows every commit (PRAGMA data_version).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSigningFetch, signRequest } from '../../src/client/index.ts';
import type { ClientCredentials, TokenCredentials } from '../../src/client/index.ts';
import { startServer } from '../support/server.ts';
import type { TestServer } from '../support/server.ts';
import { localOwnerRecord } from '../support/owners.ts';

describe('two servers on one SQLite file', () => {
  let first: TestServer;
  let second: TestServer;
  let client: ClientCredentials;
  let token: TokenCredentials;

  before(async () => {
    first = await startServer();
    second = await startServer({ path: first.path });
    const registered = await first.provider.clients.register({ name: 'Photo Printer' });
    client = { key: registered.key, secret: registered.secret };
    const owner = await first.store.owners.create(
      localOwnerRecord({ id: 'owner-sqlite', username: 'sqlite', passwordHash: 'scrypt$unused' }),
    );
    const issued = await first.provider.tokens.issue({ clientKey: client.key, ownerId: owner.id });
    token = { token: issued.token, secret: issued.secret };
  });
  after(async () => {
    await second.close();
    await first.close();
  });

  const me = async (server: TestServer) => {
    const response = await createSigningFetch({ client, token })(`${server.url}/api/me`);
    const text = await response.text();
    return [response.status, new URLSearchParams(text).get('oauth_problem')] as const;
  };

  it('refuses on the other server, on its next request, a token invalidated on one', async () => {
    assert.deepEqual(await me(second), [200, null]); // in the second's read cache now
    const signed = signRequest({
      method: 'POST',
      url: `${first.url}/oauth/invalidate_token`,
      client,
      token,
    });
    const ended = await fetch(signed.url, { method: 'POST', headers: signed.headers });
    assert.equal(ended.status, 200, await ended.text());
    assert.deepEqual(await me(second), [401, 'token_revoked']);
    assert.deepEqual(await me(first), [401, 'token_revoked']);
  });
});
