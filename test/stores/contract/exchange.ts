// Contract: TemporaryCredentialStore.exchange (RFC 5849 §2.3): an authorized credential is
// consumed and its token credential issued in one atomic step, once, by its own client only.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StoreConflictError, type Store } from '../../../src/store/index.ts';
import { authorized, createParties, issued, newToken, now, unique } from './fixtures.ts';

export function describeExchange(store: () => Store): void {
  const temporary = () => store().temporaryCredentials;

  describe('RFC 5849 §2.3 temporary credentials: exchange for token credentials', () => {
    it('consumes an authorized credential and issues the token credential together', async () => {
      const { token, clientKey, ownerId } = await authorized(store());
      // With a session (session extension), so its two fields are written too.
      const issue = newToken(clientKey, ownerId, {
        sessionHandleHash: 'd'.repeat(64),
        sessionExpiresAt: now + 3_600_000,
      });
      const consumed = await temporary().exchange(token, clientKey, now, issue);
      assert.equal(consumed?.state, 'consumed');
      assert.equal(consumed.token, token);
      assert.deepEqual(await temporary().find(token), consumed);
      assert.deepEqual(await store().tokenCredentials.find(issue.token), {
        ...issue,
        lastUsedAt: null,
        deviceHint: null,
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
}
