import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { nonceHash, nonceHashHalves } from '../../src/store/nonce-hash.ts';
import type { NonceKey } from '../../src/store/types.ts';

/** The storage form as written down: SHA-256 over each part's 4-byte UTF-8 length and UTF-8. */
function reference(key: NonceKey): bigint {
  const sha = createHash('sha256');
  for (const part of [
    'latchkey nonce v1',
    key.clientKey,
    key.token,
    String(key.timestamp),
    key.nonce,
  ]) {
    const bytes = Buffer.from(part, 'utf8');
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    sha.update(length).update(bytes);
  }
  return sha.digest().readBigInt64BE(0);
}

const text = (maxLength: number) =>
  fc.oneof(
    fc.string({ maxLength }),
    fc.string({ unit: 'grapheme', maxLength }),
    fc.string({ unit: 'binary', maxLength }),
    fc.constantFrom('a'.repeat(127), 'a'.repeat(128), 'é'.repeat(64), 'x'.repeat(300)),
  );

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

  it('is the same digest for any text, ASCII or not, short or long', () => {
    fc.assert(
      fc.property(
        text(200),
        text(200),
        fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        text(200),
        (clientKey, token, timestamp, nonce) => {
          const key = { clientKey, token, timestamp, nonce };
          assert.equal(nonceHash(key), reference(key));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('gives the halves of the same 64 bits, high signed and low unsigned', () => {
    const key = { clientKey: 'k', token: '', timestamp: 1700000000, nonce: 'n' };
    const { high, low } = nonceHashHalves(key);
    assert.ok(low >= 0 && low < 2 ** 32);
    assert.equal(BigInt(high) * 2n ** 32n + BigInt(low), -5347075313409060755n);
  });
});
