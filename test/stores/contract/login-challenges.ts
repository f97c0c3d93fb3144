// Contract: LoginChallengeStore (sign-ins handed to an identity provider or a login app).
// Each transition happens once, only from the right state, before expiry, and (for the
// browser's return) only for the browser that started it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NewLoginChallenge, Store } from '../../../src/store/index.ts';
import { minute, now, unique } from './fixtures.ts';

function newChallenge(overrides: Partial<NewLoginChallenge> = {}): NewLoginChallenge {
  return {
    id: unique('challenge'),
    kind: 'delegated',
    browser: unique('browser'),
    origin: 'https://auth.example',
    next: '/oauth/authorize?oauth_token=t',
    oauthToken: unique('token'),
    data: '',
    createdAt: now,
    expiresAt: now + 10 * minute,
    ...overrides,
  };
}

export function describeLoginChallenges(store: () => Store): void {
  const challenges = () => store().loginChallenges;
  const outcome = () => ({ verifier: unique('verifier'), subject: 'user-42', name: 'Ada' });

  describe('login challenges', () => {
    it('finds a created challenge, pending, with every field as given', async () => {
      const given = newChallenge({ kind: 'oidc', data: '{"nonce":"n"}', oauthToken: null });
      await challenges().create(given);
      assert.deepEqual(await challenges().find(given.id), {
        ...given,
        state: 'pending',
        verifier: null,
        subject: null,
        name: null,
      });
      assert.equal(await challenges().find(unique('missing')), undefined);
    });

    it('accepts a pending challenge once, keeping who signed in and the verifier', async () => {
      const given = newChallenge();
      await challenges().create(given);
      const answer = outcome();
      const accepted = await challenges().accept(given.id, answer, now);
      assert.equal(accepted?.state, 'accepted');
      assert.equal(accepted?.subject, 'user-42');
      assert.equal(accepted?.name, 'Ada');
      assert.deepEqual(await challenges().findByVerifier(answer.verifier), accepted);
      assert.equal(await challenges().accept(given.id, outcome(), now), undefined);
      assert.equal(await challenges().reject(given.id, now), undefined);
    });

    it('refuses to accept or reject an expired challenge', async () => {
      const given = newChallenge();
      await challenges().create(given);
      assert.equal(await challenges().accept(given.id, outcome(), given.expiresAt), undefined);
      assert.equal(await challenges().reject(given.id, given.expiresAt), undefined);
      assert.equal((await challenges().find(given.id))?.state, 'pending');
    });

    it('rejects a pending challenge once; it can no longer be accepted', async () => {
      const given = newChallenge();
      await challenges().create(given);
      assert.equal((await challenges().reject(given.id, now))?.state, 'rejected');
      assert.equal(await challenges().accept(given.id, outcome(), now), undefined);
    });

    it('lets the browser that started it use an accepted challenge once, by verifier', async () => {
      const given = newChallenge();
      await challenges().create(given);
      const answer = outcome();
      await challenges().accept(given.id, answer, now);
      const from = { state: 'accepted', verifier: answer.verifier } as const;
      assert.equal(await challenges().consume(from, unique('other-browser'), now), undefined);
      assert.equal(await challenges().consume(from, given.browser, given.expiresAt), undefined);
      assert.equal((await challenges().consume(from, given.browser, now))?.state, 'used');
      assert.equal(await challenges().consume(from, given.browser, now), undefined);
    });

    it('lets the browser that started it use a pending challenge once, by id', async () => {
      const given = newChallenge({ kind: 'oidc' });
      await challenges().create(given);
      const from = { state: 'pending', id: given.id } as const;
      assert.equal(await challenges().consume(from, unique('other-browser'), now), undefined);
      assert.equal((await challenges().consume(from, given.browser, now))?.state, 'used');
      assert.equal(await challenges().consume(from, given.browser, now), undefined);
      assert.equal(await challenges().accept(given.id, outcome(), now), undefined);
    });

    it('uses a challenge once when two browsers race with the same verifier', async () => {
      const given = newChallenge();
      await challenges().create(given);
      const answer = outcome();
      await challenges().accept(given.id, answer, now);
      const from = { state: 'accepted', verifier: answer.verifier } as const;
      const results = await Promise.all(
        Array.from({ length: 5 }, () => challenges().consume(from, given.browser, now)),
      );
      assert.equal(results.filter((result) => result !== undefined).length, 1);
    });

    it('purges expired challenges only', async () => {
      const old = newChallenge({ expiresAt: now - minute });
      const live = newChallenge();
      await challenges().create(old);
      await challenges().create(live);
      assert.ok((await challenges().purgeExpired(now)) >= 1);
      assert.equal(await challenges().find(old.id), undefined);
      assert.notEqual(await challenges().find(live.id), undefined);
    });
  });
}
