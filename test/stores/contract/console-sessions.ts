// Contract: ConsoleSessionStore (src/store/contract/console-sessions.ts), written once for both
// SQL stores: a session found until it expires, removed once, purged when expired, and gone
// with the admin token it stands for.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Store } from '../../../src/store/index.ts';
import { minute, now, unique } from './fixtures.ts';

export function describeConsoleSessions(store: () => Store): void {
  describe("the console's sessions", () => {
    async function adminToken() {
      const id = unique('t').replace(/-/g, '').slice(0, 16);
      await store().adminTokens.create({
        id,
        name: unique('admin'),
        role: 'auditor',
        digest: 'x'.repeat(43),
        createdAt: now,
        expiresAt: null,
      });
      return id;
    }

    it('finds a session until it expires, and removes it once', async () => {
      const tokenId = await adminToken();
      const session = { id: unique('session'), tokenId, expiresAt: now + minute };
      await store().consoleSessions.create(session);
      assert.deepEqual(await store().consoleSessions.find(session.id, now), session);
      assert.equal(await store().consoleSessions.find(session.id, now + minute), undefined);
      assert.equal(await store().consoleSessions.remove(session.id), true);
      assert.equal(await store().consoleSessions.remove(session.id), false);
    });

    it('purges the expired ones and goes with its admin token', async () => {
      const tokenId = await adminToken();
      const old = { id: unique('session'), tokenId, expiresAt: now };
      const live = { id: unique('session'), tokenId, expiresAt: now + minute };
      await store().consoleSessions.create(old);
      await store().consoleSessions.create(live);
      assert.ok((await store().consoleSessions.purgeExpired(now)) >= 1);
      assert.equal(await store().consoleSessions.remove(old.id), false);
      const [token] = (await store().adminTokens.list()).filter((t) => t.id === tokenId);
      await store().adminTokens.remove(token!.name);
      assert.equal(await store().consoleSessions.find(live.id, now), undefined);
    });
  });
}
