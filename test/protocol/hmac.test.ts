import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { hmacBase64 as hmacWithKey, prepareHmacKey } from '../../src/protocol/hmac.ts';
import type { HmacDigest } from '../../src/protocol/hmac.ts';

/** HMAC under a key prepared for this one call. */
const hmacBase64 = (digest: HmacDigest, key: string, text: string) =>
  hmacWithKey(prepareHmacKey(digest, key), text);
const hex = (base64: string) => Buffer.from(base64, 'base64').toString('hex');
const digests: HmacDigest[] = ['sha1', 'sha256', 'sha512'];

describe('HMAC from two one-shot digests (RFC 2104)', () => {
  it('gives the RFC 2202 test case 2 value for SHA-1', () => {
    assert.equal(
      hex(hmacBase64('sha1', 'Jefe', 'what do ya want for nothing?')),
      'effcdf6ae5eb2fa2d27416d5f184df9c259a7c79',
    );
  });

  it('gives the RFC 4231 test case 2 values for SHA-256 and SHA-512', () => {
    const text = 'what do ya want for nothing?';
    assert.equal(
      hex(hmacBase64('sha256', 'Jefe', text)),
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
    assert.equal(
      hex(hmacBase64('sha512', 'Jefe', text)),
      '164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737',
    );
  });

  it('hashes a key longer than a block first, as createHmac does (RFC 2104 §2)', () => {
    const key = '\xaa'.repeat(131); // RFC 4231 case 6's key, as text: 262 bytes of UTF-8
    const text = 'Test Using Larger Than Block-Size Key - Hash Key First';
    assert.equal(
      hmacBase64('sha256', key, text),
      createHmac('sha256', key).update(text).digest('base64'),
    );
  });

  it('agrees with createHmac for any key and text, ASCII or not', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...digests),
        fc.oneof(fc.string({ maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 200 })),
        fc.oneof(fc.string({ maxLength: 400 }), fc.string({ unit: 'binary', maxLength: 400 })),
        (digest, key, text) => {
          assert.equal(
            hmacBase64(digest, key, text),
            createHmac(digest, key).update(text).digest('base64'),
          );
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('agrees with createHmac for a long text, ASCII or not', () => {
    for (const text of ['a'.repeat(5000), 'é€😀'.repeat(1500)]) {
      assert.equal(
        hmacBase64('sha1', 'k', text),
        createHmac('sha1', 'k').update(text).digest('base64'),
      );
    }
  });

  it('gives the same value again and again from one prepared key', () => {
    const key = prepareHmacKey('sha1', 'one-key');
    const expected = createHmac('sha1', 'one-key').update('text').digest('base64');
    for (let i = 0; i < 3; i++) assert.equal(hmacWithKey(key, 'text'), expected);
  });
});
