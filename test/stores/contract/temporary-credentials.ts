// Contract: TemporaryCredentialStore, the §2.1–2.3 state machine. Each transition happens
// once, atomically; every refused transition leaves the credential as it was.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StoreConflictError, type Store } from '../../../src/store/index.ts';
import {
  createParties,
  grantFor,
  minute,
  newTemporary,
  newToken,
  now,
  unique,
} from './fixtures.ts';

/** An issued credential of a fresh client, plus an owner to approve it. */
async function issued(store: Store) {
  const parties = await createParties(store);
  const temporary = newTemporary(parties.clientKey);
  await store.temporaryCredentials.create(temporary);
  return { ...parties, temporary, token: temporary.token };
}

/** An issued credential, approved by its owner at `now`. */
async function authorized(store: Store) {
  const fixture = await issued(store);
  const grant = grantFor(fixture.ownerId);
  assert.equal(await store.temporaryCredentials.authorize(fixture.token, grant, now), true);
  return { ...fixture, grant };
}

export function describeTemporaryCredentials(store: () => Store): void {
  const temporary = () => store().temporaryCredentials;

  describe('RFC 5849 §2.1 temporary credentials: issue', () => {
    it('stores a new credential as issued, with no owner, verifier or failures', async () => {
      const { temporary: given } = await issued(store());
      assert.deepEqual(await temporary().find(given.token), {
        ...given,
        state: 'issued',
        ownerId: null,
        verifier: null,
        approvedScope: null,
        approvedLifetime: null,
        verifierFailures: 0,
      });
    });

    it('refuses a second credential with the same token with StoreConflictError', async () => {
      const { clientKey, token } = await issued(store());
      await assert.rejects(
        temporary().create(newTemporary(clientKey, { token })),
        StoreConflictError,
      );
    });

    it('finds nothing for an unknown token', async () => {
      assert.equal(await temporary().find(unique('missing')), undefined);
    });
  });

  describe('RFC 5849 §2.2 temporary credentials: the owner answers', () => {
    it('authorizes an issued credential, recording owner, verifier, scope and lifetime', async () => {
      const { token, grant } = await authorized(store());
      const found = await temporary().find(token);
      assert.equal(found?.state, 'authorized');
      assert.equal(found.ownerId, grant.ownerId);
      assert.equal(found.verifier, grant.verifier);
      assert.equal(found.approvedScope, grant.scope);
      assert.equal(found.approvedLifetime, grant.lifetime);
    });

    it('records a null (unlimited) approved lifetime as null', async () => {
      const { token, ownerId } = await issued(store());
      await temporary().authorize(token, { ...grantFor(ownerId), lifetime: null }, now);
      assert.equal((await temporary().find(token))?.approvedLifetime, null);
    });

    it('refuses to authorize a credential twice, keeping the first verifier', async () => {
      const { token, ownerId, grant } = await authorized(store());
      assert.equal(await temporary().authorize(token, grantFor(ownerId), now), false);
      assert.equal((await temporary().find(token))?.verifier, grant.verifier);
    });

    it('refuses to authorize an expired credential', async () => {
      const { token, ownerId, temporary: given } = await issued(store());
      assert.equal(await temporary().authorize(token, grantFor(ownerId), given.expiresAt), false);
      assert.equal((await temporary().find(token))?.state, 'issued');
    });

    it('refuses to authorize an unknown credential', async () => {
      const { ownerId } = await createParties(store());
      assert.equal(await temporary().authorize(unique('missing'), grantFor(ownerId), now), false);
    });

    it('denies an issued credential', async () => {
      const { token } = await issued(store());
      assert.equal(await temporary().deny(token, now), true);
      assert.equal((await temporary().find(token))?.state, 'denied');
    });

    it('refuses to authorize a denied credential', async () => {
      const { token, ownerId } = await issued(store());
      await temporary().deny(token, now);
      assert.equal(await temporary().authorize(token, grantFor(ownerId), now), false);
      assert.equal((await temporary().find(token))?.state, 'denied');
    });

    it('refuses to deny an authorized credential', async () => {
      const { token } = await authorized(store());
      assert.equal(await temporary().deny(token, now), false);
      assert.equal((await temporary().find(token))?.state, 'authorized');
    });

    it('refuses to deny an expired credential', async () => {
      const { token, temporary: given } = await issued(store());
      assert.equal(await temporary().deny(token, given.expiresAt), false);
    });
  });

  describe('RFC 5849 §2.3 temporary credentials: verifier failures', () => {
    it('counts wrong verifiers one by one and returns the new count', async () => {
      const { token } = await authorized(store());
      assert.equal(await temporary().recordVerifierFailure(token), 1);
      assert.equal(await temporary().recordVerifierFailure(token), 2);
      assert.equal(await temporary().recordVerifierFailure(token), 3);
      assert.equal((await temporary().find(token))?.verifierFailures, 3);
    });

    it('counts every one of many concurrent failures', async () => {
      const { token } = await authorized(store());
      const counts = await Promise.all(
        Array.from({ length: 20 }, () => temporary().recordVerifierFailure(token)),
      );
      assert.deepEqual(
        counts.sort((a, b) => a - b),
        Array.from({ length: 20 }, (_, i) => i + 1),
      );
    });

    it('returns 0 for an unknown credential', async () => {
      assert.equal(await temporary().recordVerifierFailure(unique('missing')), 0);
    });
  });

  describe('RFC 5849 §2.3 temporary credentials: exchange for token credentials', () => {
    it('consumes an authorized credential and issues the token credential together', async () => {
      const { token, clientKey, ownerId } = await authorized(store());
      const issue = newToken(clientKey, ownerId);
      const consumed = await temporary().exchange(token, clientKey, now, issue);
      assert.equal(consumed?.state, 'consumed');
      assert.equal(consumed.token, token);
      assert.deepEqual(await temporary().find(token), consumed);
      assert.deepEqual(await store().tokenCredentials.find(issue.token), {
        ...issue,
        lastUsedAt: null,
        revokedAt: null,
      });
    });

    it('refuses a second exchange of the same credential', async () => {
      const { token, clientKey, ownerId } = await authorized(store());
      await temporary().exchange(token, clientKey, now, newToken(clientKey, ownerId));
      const second = newToken(clientKey, ownerId);
      assert.equal(await temporary().exchange(token, clientKey, now, second), undefined);
      assert.equal(await store().tokenCredentials.find(second.token), undefined);
    });

    it('refuses an exchange by another client, leaving the credential authorized', async () => {
      const { token, clientKey, ownerId } = await authorized(store());
      const other = await createParties(store());
      const issue = newToken(other.clientKey, ownerId);
      assert.equal(await temporary().exchange(token, other.clientKey, now, issue), undefined);
      assert.equal((await temporary().find(token))?.state, 'authorized');
      assert.equal(await store().tokenCredentials.find(issue.token), undefined);
      assert.notEqual(
        await temporary().exchange(token, clientKey, now, newToken(clientKey, ownerId)),
        undefined,
      );
    });

    it('refuses to exchange a credential the owner has not authorized', async () => {
      const { token, clientKey, ownerId } = await issued(store());
      const issue = newToken(clientKey, ownerId);
      assert.equal(await temporary().exchange(token, clientKey, now, issue), undefined);
      assert.equal((await temporary().find(token))?.state, 'issued');
      assert.equal(await store().tokenCredentials.find(issue.token), undefined);
    });

    it('refuses to exchange a denied credential', async () => {
      const { token, clientKey, ownerId } = await issued(store());
      await temporary().deny(token, now);
      assert.equal(
        await temporary().exchange(token, clientKey, now, newToken(clientKey, ownerId)),
        undefined,
      );
    });

    it('refuses to exchange an expired credential', async () => {
      const { token, clientKey, ownerId, temporary: given } = await authorized(store());
      const issue = newToken(clientKey, ownerId);
      assert.equal(await temporary().exchange(token, clientKey, given.expiresAt, issue), undefined);
      assert.equal((await temporary().find(token))?.state, 'authorized');
    });

    it('refuses an unknown credential', async () => {
      const { clientKey, ownerId } = await createParties(store());
      const issue = newToken(clientKey, ownerId);
      assert.equal(await temporary().exchange(unique('missing'), clientKey, now, issue), undefined);
    });

    it('leaves the credential authorized when the token to issue already exists', async () => {
      const { token, clientKey, ownerId } = await authorized(store());
      const taken = await store().tokenCredentials.create(newToken(clientKey, ownerId));
      const issue = newToken(clientKey, ownerId, { token: taken.token });
      await assert.rejects(temporary().exchange(token, clientKey, now, issue), StoreConflictError);
      assert.equal((await temporary().find(token))?.state, 'authorized');
    });

    it('lets exactly one of 50 concurrent exchanges of one credential succeed', async () => {
      const { token, clientKey, ownerId } = await authorized(store());
      const issues = Array.from({ length: 50 }, () => newToken(clientKey, ownerId));
      const results = await Promise.all(
        issues.map((issue) => temporary().exchange(token, clientKey, now, issue)),
      );
      assert.equal(results.filter((result) => result !== undefined).length, 1);
      const found = await Promise.all(issues.map((i) => store().tokenCredentials.find(i.token)));
      assert.equal(found.filter((credential) => credential !== undefined).length, 1);
    });
  });

  describe('RFC 5849 §2 temporary credentials: removal and expiry', () => {
    it('removes a credential once: true, then false', async () => {
      const { token } = await issued(store());
      assert.equal(await temporary().remove(token), true);
      assert.equal(await temporary().find(token), undefined);
      assert.equal(await temporary().remove(token), false);
    });

    it('purges only the credentials that expired before the given time', async () => {
      // Long before every other test's data, so the count is this test's alone; a fixed time,
      // so a live leftover of an earlier run on the same database is never counted.
      const { clientKey } = await createParties(store());
      const at = 1_000_000_000;
      const expired = [at - 2 * minute, at - 1].map((expiresAt) =>
        newTemporary(clientKey, { createdAt: expiresAt - minute, expiresAt }),
      );
      const live = newTemporary(clientKey, { createdAt: at - minute, expiresAt: at + minute });
      for (const credential of [...expired, live]) await temporary().create(credential);
      assert.equal(await temporary().purgeExpired(at), 2);
      assert.equal(await temporary().find(expired[0]!.token), undefined);
      assert.notEqual(await temporary().find(live.token), undefined);
      await temporary().remove(live.token);
    });
  });
}
