import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nonceHash } from '../../src/store/nonce-hash.ts';

// The values every store already holds: the encoding must never drift, or a replay of a nonce
// stored before an upgrade would be accepted after it (RFC 5849 §3.3).
describe('Nonce hash (RFC 5849 §3.3 storage form)', () => {
  it('keeps the recorded digest of an ASCII key', () => {
    const key = { clientKey: 'k', token: '', timestamp: 1700000000, nonce: 'n' };
    assert.equal(nonceHash(key), -5347075313409060755n);
  });

  it('keeps the recorded digest of a key with non-ASCII text', () => {
    const key = { clientKey: 'clé', token: 'tök€n', timestamp: 1763790000, nonce: 'abc\u{1F600}' };
    assert.equal(nonceHash(key), -7172729128281445625n);
  });

  it('keeps length prefixes, so moving a character between parts changes the digest', () => {
    assert.equal(
      nonceHash({ clientKey: 'ab', token: 'c', timestamp: 1, nonce: '' }),
      -8499441071307563543n,
    );
    assert.equal(
      nonceHash({ clientKey: 'a', token: 'bc', timestamp: 1, nonce: '' }),
      -6351599818519070105n,
    );
  });
});
