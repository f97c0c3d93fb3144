import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  bodyHashDigestByLength,
  builtInSignatureMethods,
  computeBodyHash,
} from '../../src/protocol/index.ts';

describe('Request Body Hash extension: computeBodyHash', () => {
  it('gives the extension example: SHA-1 of "Hello World!"', () => {
    assert.equal(computeBodyHash('sha1', 'Hello World!'), 'Lve95gjOVATpfV8EL5X4nxwjKHE=');
    assert.equal(
      computeBodyHash('sha1', new TextEncoder().encode('Hello World!')),
      'Lve95gjOVATpfV8EL5X4nxwjKHE=',
    );
  });

  it('hashes an absent body as the empty string', () => {
    assert.equal(computeBodyHash('sha1', ''), '2jmj7l5rSw0yVb/vlWAYkK/YBwk=');
    assert.equal(computeBodyHash('sha256', ''), '47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=');
  });

  it('names the digest of each method: SHA-1, SHA-256, SHA-512, none for PLAINTEXT', () => {
    const digests = Object.fromEntries(
      builtInSignatureMethods.map((method) => [method.name, method.bodyHashDigest]),
    );
    assert.deepEqual(digests, {
      'HMAC-SHA1': 'sha1',
      'HMAC-SHA256': 'sha256',
      'HMAC-SHA512': 'sha512',
      'RSA-SHA1': 'sha1',
      'RSA-SHA256': 'sha256',
      'RSA-SHA512': 'sha512',
      PLAINTEXT: undefined,
    });
  });

  it('tells the digest a client chose by the length of its base64, for PLAINTEXT', () => {
    for (const digest of ['sha1', 'sha256', 'sha512'] as const) {
      assert.equal(bodyHashDigestByLength(computeBodyHash(digest, 'body')), digest);
    }
    assert.equal(bodyHashDigestByLength('short'), undefined);
  });
});
