// An owner's tokens one by one (provider.tokens.ofOwner and revokeOwned, RFC 5849 §2.3 "the
// owner should be able to revoke issued token credentials"): live tokens only, never a secret,
// each with the device hint its first verified request left; one revoked, the others kept;
// another owner's token refused as an unknown one.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { signRequest } from '../../src/client/index.ts';
import { createProvider, NotFoundError } from '../../src/provider/index.ts';
import type { Client, IncomingRequest, Owner, Provider } from '../../src/provider/index.ts';
import type { TokenCredential } from '../../src/provider/index.ts';
import { createSqliteStore } from '../../src/store/index.ts';

let provider: Provider;
let offsetMs = 0;
let client: Client;
let other: Client;
let alice: Owner;
let bob: Owner;
before(async () => {
  provider = createProvider({
    store: createSqliteStore({ path: ':memory:' }),
    ownsStore: true,
    now: () => Date.now() + offsetMs,
  });
  client = await provider.clients.register({ name: 'Photo Printer' });
  other = await provider.clients.register({ name: 'Calendar' });
  alice = await provider.owners.create('alice', 'correct horse battery');
  bob = await provider.owners.create('bob', 'correct horse battery');
});
after(() => provider.close());

/** A signed GET as an adapter hands it over, saying `userAgent`. */
function incoming(token: TokenCredential, userAgent: string | undefined): IncomingRequest {
  const signer = token.clientKey === client.key ? client : other;
  const signed = signRequest({
    method: 'GET',
    url: 'https://api.example.com/photos',
    client: { key: signer.key, secret: signer.secret },
    token: { token: token.token, secret: token.secret },
  });
  return {
    method: 'GET',
    scheme: 'https',
    host: 'api.example.com',
    path: '/photos',
    query: '',
    authorization: signed.headers['Authorization'],
    contentType: undefined,
    body: undefined,
    secure: true,
    userAgent,
  };
}

const issue = (ownerId: string, clientKey = client.key, lifetime?: number) =>
  provider.tokens.issue({ clientKey, ownerId, lifetime });

describe('provider.tokens.ofOwner and revokeOwned', () => {
  it('lists the owner’s live tokens, earliest issued first, with their device hints and never a secret', async () => {
    const phone = await issue(alice.id);
    const laptop = await issue(alice.id);
    const revoked = await issue(alice.id);
    await provider.tokens.revoke(revoked.token);
    await issue(bob.id);
    await provider.verifyResourceRequest(
      incoming(
        phone,
        'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
      ),
    );
    await provider.verifyResourceRequest(incoming(laptop, undefined));
    const listed = await provider.tokens.ofOwner(alice.id, { clientKey: client.key });
    assert.deepEqual(
      new Map(listed.map((token) => [token.token, token.device])),
      new Map([
        [phone.token, 'Safari on iOS'],
        [laptop.token, null],
      ]),
    );
    assert.deepEqual(
      listed.map((token) => token.issuedAt),
      listed.map((token) => token.issuedAt).sort((a, b) => a - b),
    );
    const used = listed.find((token) => token.token === laptop.token);
    assert.ok(used?.lastUsedAt !== null, 'used, without a User-Agent: no hint');
    assert.equal(JSON.stringify(listed).includes(phone.secret), false, 'never a secret');
    assert.ok(listed.every((token) => /^[\w-]{22}$/.test(token.id) && token.id !== token.token));
  });

  it('leaves out expired tokens, and filters by client', async () => {
    const owner = await provider.owners.create('carol', 'correct horse battery');
    const kept = await issue(owner.id, other.key);
    await issue(owner.id, client.key);
    await provider.tokens.issue({ clientKey: client.key, ownerId: owner.id, lifetime: 1 });
    offsetMs += 2000; // the one-second token is over
    assert.equal((await provider.tokens.ofOwner(owner.id)).length, 2);
    assert.deepEqual(
      (await provider.tokens.ofOwner(owner.id, { clientKey: other.key })).map((t) => t.token),
      [kept.token],
    );
  });

  it('revokes one token: refused from its next request, the owner’s other token of that app kept', async () => {
    const owner = await provider.owners.create('dana', 'correct horse battery');
    const first = await issue(owner.id);
    const second = await issue(owner.id);
    const one = (await provider.tokens.ofOwner(owner.id)).find((t) => t.token === first.token);
    const revoked = await provider.tokens.revokeOwned(owner.id, one!.id);
    assert.equal(revoked.token, first.token);
    await assert.rejects(
      provider.verifyResourceRequest(incoming(first, 'curl/8.5.0')),
      (error: { problem?: string }) => error.problem === 'token_revoked',
    );
    const kept = await provider.verifyResourceRequest(incoming(second, 'curl/8.5.0'));
    assert.equal(kept.caller.token, second.token);
    // Again: no error, nothing more revoked.
    await provider.tokens.revokeOwned(owner.id, one!.id);
    assert.deepEqual(
      (await provider.tokens.ofOwner(owner.id)).map((t) => t.token),
      [second.token],
    );
  });

  it('refuses another owner’s token id as an unknown one, and leaves that token alone', async () => {
    const bobs = await issue(bob.id);
    const [bobsToken] = (await provider.tokens.ofOwner(bob.id)).filter(
      (t) => t.token === bobs.token,
    );
    await assert.rejects(provider.tokens.revokeOwned(alice.id, bobsToken!.id), NotFoundError);
    await assert.rejects(provider.tokens.revokeOwned(alice.id, 'A'.repeat(22)), NotFoundError);
    await assert.rejects(provider.tokens.revoke(bobs.token, alice.id), NotFoundError);
    assert.equal((await provider.tokens.find(bobs.token))?.revokedAt, null);
  });
});
