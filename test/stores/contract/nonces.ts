// Contract: NonceStore (RFC 5849 §3.3). A nonce is unique per (timestamp, client, token):
// the first use is accepted, a replay refused, atomically. The provider derives expiresAt
// from the request's timestamp (timestamp + window), so a replay carries the same expiresAt.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NonceKey, Store } from '../../../src/store/index.ts';
import { unique } from './fixtures.ts';

/** Seconds, as nonce times are. */
const timestamp = 1_750_000_000;
const window = 300;

function newKey(overrides: Partial<NonceKey> = {}): NonceKey {
  return {
    clientKey: unique('client'),
    token: unique('token'),
    timestamp,
    nonce: unique('nonce'),
    ...overrides,
  };
}

export function describeNonces(store: () => Store): void {
  const nonces = () => store().nonces;
  const remember = (key: NonceKey) => nonces().remember(key, key.timestamp + window);

  describe('RFC 5849 §3.3 nonces', () => {
    it('accepts the first use of a nonce', async () => {
      assert.equal(await remember(newKey()), true);
    });

    it('refuses a replay of the same nonce, timestamp, client and token', async () => {
      const key = newKey();
      await remember(key);
      assert.equal(await remember({ ...key }), false);
    });

    it('accepts the same nonce with another token', async () => {
      const key = newKey();
      await remember(key);
      assert.equal(await remember({ ...key, token: unique('token') }), true);
    });

    it('accepts the same nonce without a token after one with a token', async () => {
      const key = newKey();
      await remember(key);
      assert.equal(await remember({ ...key, token: '' }), true);
    });

    it('accepts the same nonce from another client', async () => {
      const key = newKey();
      await remember(key);
      assert.equal(await remember({ ...key, clientKey: unique('client') }), true);
    });

    it('accepts the same nonce with another timestamp', async () => {
      const key = newKey();
      await remember(key);
      assert.equal(await remember({ ...key, timestamp: key.timestamp + 1 }), true);
    });

    it('accepts another nonce with the same timestamp, client and token', async () => {
      const key = newKey();
      await remember(key);
      assert.equal(await remember({ ...key, nonce: unique('nonce') }), true);
    });

    it('keeps parts apart: moving characters between client and token is another key', async () => {
      const key = newKey({ clientKey: 'ab', token: 'c' });
      await remember(key);
      assert.equal(await remember({ ...key, clientKey: 'a', token: 'bc' }), true);
    });

    it('lets exactly one of 50 concurrent uses of one nonce through', async () => {
      const key = newKey();
      const results = await Promise.all(Array.from({ length: 50 }, () => remember({ ...key })));
      assert.equal(results.filter(Boolean).length, 1);
    });

    it('counts a remembered nonce once in size, not its replays', async () => {
      const key = newKey();
      const before = await nonces().size();
      await remember(key);
      await remember(key);
      assert.equal(await nonces().size(), before + 1);
    });

    it('keeps a nonce until its expiry and purges it only after', async () => {
      // Long before every other test's nonces, so the counts are this test's alone.
      const at = 1_000_000;
      const expired = newKey({ timestamp: at - window - 1 });
      const lastSecond = newKey({ timestamp: at - window });
      for (const key of [expired, lastSecond]) await remember(key);
      assert.equal(await nonces().purgeExpired(at), 1);
      assert.equal(await remember(lastSecond), false);
      assert.equal(await nonces().purgeExpired(at + 1), 1);
    });

    it('forgets a purged nonce: after expiry only the timestamp window refuses its replay', async () => {
      // Documented behaviour: purging is what keeps the store bounded, so a key seen again
      // after its expiry is accepted here; the provider refuses its stale timestamp first.
      const key = newKey({ timestamp: 2_000_000 });
      await remember(key);
      await nonces().purgeExpired(key.timestamp + window + 1);
      assert.equal(await remember(key), true);
      await nonces().purgeExpired(key.timestamp + window + 1);
    });
  });
}
