// Contract: SessionStore (signed-in owners on the web pages) and AttemptStore (login
// throttling counters).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Session, Store } from '../../../src/store/index.ts';
import { createParties, minute, now, unique } from './fixtures.ts';

async function newSession(store: Store, overrides: Partial<Session> = {}): Promise<Session> {
  const { ownerId } = await createParties(store);
  const session = { id: unique('session'), ownerId, createdAt: now, expiresAt: now + minute };
  return { ...session, ...overrides };
}

export function describeSessions(store: () => Store): void {
  const sessions = () => store().sessions;

  describe('sessions', () => {
    it('finds a session before it expires', async () => {
      const session = await newSession(store());
      await sessions().create(session);
      assert.deepEqual(await sessions().find(session.id, session.expiresAt - 1), session);
    });

    it('finds no session once it has expired', async () => {
      const session = await newSession(store());
      await sessions().create(session);
      assert.equal(await sessions().find(session.id, session.expiresAt), undefined);
    });

    it('finds nothing for an unknown id', async () => {
      assert.equal(await sessions().find(unique('missing'), now), undefined);
    });

    it('removes a session once: true, then false', async () => {
      const session = await newSession(store());
      await sessions().create(session);
      assert.equal(await sessions().remove(session.id), true);
      assert.equal(await sessions().find(session.id, now), undefined);
      assert.equal(await sessions().remove(session.id), false);
    });

    it("removes every session of an owner, and only that owner's", async () => {
      const first = await newSession(store());
      const second = { ...first, id: unique('session') };
      const other = await newSession(store());
      for (const session of [first, second, other]) await sessions().create(session);
      assert.equal(await sessions().removeForOwner(first.ownerId), 2);
      assert.deepEqual(await sessions().find(other.id, now), other);
    });

    it('purges only the sessions that expired before the given time', async () => {
      // Long before every other test's sessions, so the count is this test's alone.
      const at = 1_000_000_000;
      const expired = await newSession(store(), { createdAt: 0, expiresAt: at - 1 });
      const live = await newSession(store(), { createdAt: 0, expiresAt: at + minute });
      for (const session of [expired, live]) await sessions().create(session);
      assert.equal(await sessions().purgeExpired(at), 1);
      assert.deepEqual(await sessions().find(live.id, at), live);
      await sessions().remove(live.id);
    });
  });
}

export function describeAttempts(store: () => Store): void {
  const attempts = () => store().attempts;
  const window = 15 * minute;

  describe('login attempts', () => {
    it('counts each hit within the window', async () => {
      const key = unique('account');
      assert.equal(await attempts().hit(key, now, window), 1);
      assert.equal(await attempts().hit(key, now + 1, window), 2);
      assert.equal(await attempts().hit(key, now + minute, window), 3);
    });

    it('counts hits at the same instant separately', async () => {
      const key = unique('account');
      await attempts().hit(key, now, window);
      assert.equal(await attempts().hit(key, now, window), 2);
    });

    it('stops counting hits once they fall out of the window', async () => {
      const key = unique('account');
      await attempts().hit(key, now, window);
      await attempts().hit(key, now + minute, window);
      assert.equal(await attempts().hit(key, now + 2 * window, window), 1);
    });

    it('keeps keys apart', async () => {
      const key = unique('account');
      await attempts().hit(key, now, window);
      assert.equal(await attempts().hit(unique('account'), now, window), 1);
    });

    it('starts again from zero after a reset', async () => {
      const key = unique('account');
      await attempts().hit(key, now, window);
      await attempts().hit(key, now, window);
      await attempts().reset(key);
      assert.equal(await attempts().hit(key, now, window), 1);
    });
  });
}
