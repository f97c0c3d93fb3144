// Contract: TemporaryCredentialStore, the §2.1–2.3 state machine. Each transition happens
// once, atomically; every refused transition leaves the credential as it was.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StoreConflictError, type Store } from '../../../src/store/index.ts';
import {
  authorized,
  createParties,
  grantFor,
  issued,
  minute,
  newTemporary,
  now,
  unique,
} from './fixtures.ts';

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

  describe('RFC 5849 §2.3 temporary credentials: verifier tries', () => {
    it("counts tries one by one up to the limit and returns each try's number, then 0", async () => {
      const { token } = await authorized(store());
      assert.equal(await temporary().recordVerifierAttempt(token, 3), 1);
      assert.equal(await temporary().recordVerifierAttempt(token, 3), 2);
      assert.equal(await temporary().recordVerifierAttempt(token, 3), 3);
      assert.equal(await temporary().recordVerifierAttempt(token, 3), 0);
      assert.equal((await temporary().find(token))?.verifierFailures, 3);
    });

    it('lets exactly the limit through of many concurrent tries', async () => {
      const { token } = await authorized(store());
      const numbers = await Promise.all(
        Array.from({ length: 20 }, () => temporary().recordVerifierAttempt(token, 5)),
      );
      assert.deepEqual(
        numbers.sort((a, b) => a - b),
        [...Array.from({ length: 15 }, () => 0), 1, 2, 3, 4, 5],
      );
      assert.equal((await temporary().find(token))?.verifierFailures, 5);
    });

    it('returns 0 for an unknown credential', async () => {
      assert.equal(await temporary().recordVerifierAttempt(unique('missing'), 5), 0);
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
