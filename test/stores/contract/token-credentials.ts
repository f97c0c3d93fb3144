// Contract: TokenCredentialStore (RFC 5849 §2.3 grants): lookup, listing, revocation once,
// last-use batches with device hints written once, and the count.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StoreConflictError, type Store } from '../../../src/store/index.ts';
import type { NewTokenCredential, TokenCredential } from '../../../src/store/index.ts';
import { createParties, minute, newToken, now, unique } from './fixtures.ts';

export function describeTokenCredentials(store: () => Store): void {
  const tokens = () => store().tokenCredentials;

  describe('RFC 5849 §2.3 token credentials', () => {
    it('returns a created credential from find, not yet used or revoked', async () => {
      const { clientKey, ownerId } = await createParties(store());
      const given = newToken(clientKey, ownerId, { expiresAt: now + 60 * minute });
      const created = await tokens().create(given);
      assert.deepEqual(created, {
        ...given,
        lastUsedAt: null,
        deviceHint: null,
        revokedAt: null,
        sessionHandleHash: null,
        sessionExpiresAt: null,
      });
      assert.deepEqual(await tokens().find(given.token), created);
    });

    it('refuses a second credential with the same token with StoreConflictError', async () => {
      const { clientKey, ownerId } = await createParties(store());
      const created = await tokens().create(newToken(clientKey, ownerId));
      const again = newToken(clientKey, ownerId, { token: created.token });
      await assert.rejects(tokens().create(again), StoreConflictError);
    });

    it('finds nothing for an unknown token', async () => {
      assert.equal(await tokens().find(unique('missing')), undefined);
    });

    it('lists by owner, by client, and by both', async () => {
      const { clientKey, ownerId } = await createParties(store());
      const other = await createParties(store());
      const both = await tokens().create(newToken(clientKey, ownerId));
      const ownerOnly = await tokens().create(newToken(other.clientKey, ownerId));
      const clientOnly = await tokens().create(newToken(clientKey, other.ownerId));
      const keys = (list: { token: string }[]) => list.map((credential) => credential.token).sort();
      assert.deepEqual(keys(await tokens().list({ ownerId })), keys([both, ownerOnly]));
      assert.deepEqual(keys(await tokens().list({ clientKey })), keys([both, clientOnly]));
      assert.deepEqual(keys(await tokens().list({ ownerId, clientKey })), [both.token]);
    });

    it('lists every credential when no filter is given', async () => {
      const { clientKey, ownerId } = await createParties(store());
      const created = await tokens().create(newToken(clientKey, ownerId));
      assert.ok((await tokens().list()).some((credential) => credential.token === created.token));
    });

    it('revokes a credential once: true and revokedAt set, then false', async () => {
      const { clientKey, ownerId } = await createParties(store());
      const created = await tokens().create(newToken(clientKey, ownerId));
      assert.equal(await tokens().revoke(created.token, now + minute), true);
      assert.equal(await tokens().revoke(created.token, now + 2 * minute), false);
      assert.equal((await tokens().find(created.token))?.revokedAt, now + minute);
    });

    it('does not revoke an unknown credential', async () => {
      assert.equal(await tokens().revoke(unique('missing'), now), false);
    });

    it('revokes every live credential of one grant, and only those', async () => {
      const { clientKey, ownerId } = await createParties(store());
      const other = await createParties(store());
      const live = [newToken(clientKey, ownerId), newToken(clientKey, ownerId)];
      const revoked = newToken(clientKey, ownerId);
      const expired = newToken(clientKey, ownerId, { expiresAt: now - minute });
      const otherClient = newToken(other.clientKey, ownerId);
      for (const credential of [...live, revoked, expired, otherClient]) {
        await tokens().create(credential);
      }
      await tokens().revoke(revoked.token, now - minute);
      assert.equal(await tokens().revokeGrant(ownerId, clientKey, now), 2);
      for (const credential of live) {
        assert.equal((await tokens().find(credential.token))?.revokedAt, now);
      }
      assert.equal((await tokens().find(revoked.token))?.revokedAt, now - minute);
      assert.equal((await tokens().find(otherClient.token))?.revokedAt, null);
    });

    it('records last use for many credentials in one call', async () => {
      const { clientKey, ownerId } = await createParties(store());
      const created = await Promise.all(
        Array.from({ length: 25 }, () => tokens().create(newToken(clientKey, ownerId))),
      );
      const lastUsed = new Map(created.map((credential, i) => [credential.token, now + i]));
      await tokens().touch(lastUsed);
      for (const [token, at] of lastUsed) {
        assert.equal((await tokens().find(token))?.lastUsedAt, at);
      }
    });

    it('never moves last use back when an older batch arrives late', async () => {
      const { clientKey, ownerId } = await createParties(store());
      const created = await tokens().create(newToken(clientKey, ownerId));
      await tokens().touch(new Map([[created.token, now + 2 * minute]]));
      await tokens().touch(new Map([[created.token, now + minute]]));
      assert.equal((await tokens().find(created.token))?.lastUsedAt, now + 2 * minute);
    });

    it('ignores unknown tokens in a last-use batch', async () => {
      const { clientKey, ownerId } = await createParties(store());
      const created = await tokens().create(newToken(clientKey, ownerId));
      const missing = unique('missing');
      await tokens().touch(
        new Map([
          [missing, now],
          [created.token, now],
        ]),
      );
      assert.equal(await tokens().find(missing), undefined);
      assert.equal((await tokens().find(created.token))?.lastUsedAt, now);
    });

    it('writes a device hint with the last use, in the same batch, for the tokens given one', async () => {
      const { clientKey, ownerId } = await createParties(store());
      const phone = await tokens().create(newToken(clientKey, ownerId));
      const laptop = await tokens().create(newToken(clientKey, ownerId));
      const silent = await tokens().create(newToken(clientKey, ownerId));
      await tokens().touch(
        new Map([
          [phone.token, now],
          [laptop.token, now],
          [silent.token, now],
        ]),
        new Map([
          [phone.token, 'Mozilla/5.0 (Android 14; Mobile; rv:128.0) Gecko/128.0 Firefox/128.0'],
          [laptop.token, 'curl/8.5.0'],
        ]),
      );
      const found = async (token: string) => (await tokens().find(token))?.deviceHint;
      assert.equal(
        await found(phone.token),
        'Mozilla/5.0 (Android 14; Mobile; rv:128.0) Gecko/128.0 Firefox/128.0',
      );
      assert.equal(await found(laptop.token), 'curl/8.5.0');
      assert.equal(await found(silent.token), null);
      const listed = await tokens().list({ ownerId, clientKey });
      assert.deepEqual(
        listed.map((token) => token.deviceHint).sort(),
        [
          'Mozilla/5.0 (Android 14; Mobile; rv:128.0) Gecko/128.0 Firefox/128.0',
          'curl/8.5.0',
          null,
        ].sort(),
      );
    });

    it('keeps the first device hint: a later batch, or one without hints, never replaces it', async () => {
      const { clientKey, ownerId } = await createParties(store());
      const created = await tokens().create(newToken(clientKey, ownerId));
      await tokens().touch(
        new Map([[created.token, now]]),
        new Map([[created.token, 'first-device/1.0']]),
      );
      await tokens().touch(
        new Map([[created.token, now + minute]]),
        new Map([[created.token, 'second-device/2.0']]),
      );
      await tokens().touch(new Map([[created.token, now + 2 * minute]]));
      const stored = await tokens().find(created.token);
      assert.equal(stored?.deviceHint, 'first-device/1.0');
      assert.equal(stored?.lastUsedAt, now + 2 * minute);
    });

    it('counts stored credentials', async () => {
      const { clientKey, ownerId } = await createParties(store());
      const before = await tokens().count();
      await tokens().create(newToken(clientKey, ownerId));
      await tokens().create(newToken(clientKey, ownerId));
      assert.equal(await tokens().count(), before + 2);
    });
  });

  describe('session extension: renewal of a token credential with its session handle', () => {
    const handle = 'b'.repeat(64);
    async function sessionToken(overrides: Partial<NewTokenCredential> = {}) {
      const { clientKey, ownerId } = await createParties(store());
      return tokens().create(
        newToken(clientKey, ownerId, {
          expiresAt: now + minute,
          sessionHandleHash: handle,
          sessionExpiresAt: now + 60 * minute,
          ...overrides,
        }),
      );
    }
    const successor = (old: TokenCredential, at: number) =>
      newToken(old.clientKey, old.ownerId, {
        issuedAt: at,
        expiresAt: at + minute,
        sessionHandleHash: old.sessionHandleHash,
        sessionExpiresAt: old.sessionExpiresAt,
      });

    it('replaces an expired token in one step: the old one is gone, the new one holds the session', async () => {
      const old = await sessionToken();
      const next = successor(old, now + 2 * minute);
      const renewed = await tokens().renew(old.token, handle, now + 2 * minute, next);
      // A new token: its device hint comes with its own first verified request.
      assert.deepEqual(renewed, { ...next, lastUsedAt: null, deviceHint: null, revokedAt: null });
      assert.equal(await tokens().find(old.token), undefined);
      assert.deepEqual(await tokens().find(next.token), renewed);
    });

    it('renews a token once: a second renewal of the same token finds nothing', async () => {
      const old = await sessionToken();
      assert.ok(await tokens().renew(old.token, handle, now, successor(old, now)));
      const again = successor(old, now);
      assert.equal(await tokens().renew(old.token, handle, now, again), undefined);
      assert.equal(await tokens().find(again.token), undefined);
    });

    it('lets exactly one of two concurrent renewals of a token win', async () => {
      const old = await sessionToken();
      const [a, b] = [successor(old, now), successor(old, now)];
      const results = await Promise.all([
        tokens().renew(old.token, handle, now, a),
        tokens().renew(old.token, handle, now, b),
      ]);
      assert.equal(results.filter((result) => result !== undefined).length, 1);
      const found = [await tokens().find(a.token), await tokens().find(b.token)];
      assert.equal(found.filter((row) => row !== undefined).length, 1);
    });

    it('refuses a wrong handle, a revoked token and an ended session, changing nothing', async () => {
      const wrongHandle = await sessionToken();
      const revoked = await sessionToken();
      await tokens().revoke(revoked.token, now);
      const ended = await sessionToken({ sessionExpiresAt: now - minute });
      for (const [old, hash] of [
        [wrongHandle, 'c'.repeat(64)],
        [revoked, handle],
        [ended, handle],
      ] as const) {
        const next = successor(old, now);
        assert.equal(await tokens().renew(old.token, hash, now, next), undefined);
        assert.equal(await tokens().find(next.token), undefined);
        assert.ok(await tokens().find(old.token));
      }
    });

    it("revokes with the owner's grant an expired token whose session could renew it", async () => {
      const old = await sessionToken({ expiresAt: now - minute });
      const count = await tokens().revokeGrant(old.ownerId, old.clientKey, now);
      assert.equal(count, 1);
      assert.equal((await tokens().find(old.token))?.revokedAt, now);
      assert.equal(await tokens().renew(old.token, handle, now, successor(old, now)), undefined);
    });
  });
}
