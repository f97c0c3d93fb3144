import assert from 'node:assert/strict';
import { createHmac, createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  builtInSignatureMethods,
  constantTimeEqual,
  HMAC_SHA1,
  HMAC_SHA256,
  HMAC_SHA512,
  parsePublicKey,
  parseRsaPublicKey,
  PLAINTEXT,
  publicKeyLabel,
  RSA_SHA1,
  prepareHmacKey,
  RSA_SHA256,
  sharedSecretKey,
  SignatureMethodRegistry,
} from '../../src/protocol/index.ts';
import type { SignatureMethod } from '../../src/protocol/index.ts';
import { rsaPrivateKeyPem, rsaPublicKeyPem } from '../vectors/rfc5849.ts';

const keys = {
  clientSecret: 'kd94hf93k423kf44',
  tokenSecret: 'pfkkdhi9sl3r4s00',
  privateKey: createPrivateKey(rsaPrivateKeyPem),
  publicKey: parseRsaPublicKey(rsaPublicKeyPem),
};
const BASE = 'GET&http%3A%2F%2Fexample.com%2F&a%3D1';

/** A server's own method (§3.4 allows them): here, a reversed PLAINTEXT. */
const reversed: SignatureMethod = {
  name: 'X-REVERSED',
  keyKind: 'shared-secret',
  usesBaseString: false,
  sign: (_base, k) => [...sharedSecretKey(k)].reverse().join(''),
  verify: (_base, signature, k) => signature === [...sharedSecretKey(k)].reverse().join(''),
};

describe('RFC 5849 §3.4 signature method registry', () => {
  it('holds the seven built-in methods by default', () => {
    assert.deepEqual(new SignatureMethodRegistry().names(), [
      'HMAC-SHA1',
      'HMAC-SHA256',
      'HMAC-SHA512',
      'RSA-SHA1',
      'RSA-SHA256',
      'RSA-SHA512',
      'PLAINTEXT',
    ]);
  });

  it('finds a method by its oauth_signature_method name', () => {
    assert.equal(new SignatureMethodRegistry().get('PLAINTEXT'), PLAINTEXT);
  });

  it('returns undefined for an unknown name', () => {
    assert.equal(new SignatureMethodRegistry().get('HMAC-MD5'), undefined);
  });

  it('matches names case-sensitively', () => {
    assert.equal(new SignatureMethodRegistry().get('hmac-sha1'), undefined);
  });

  it('only() keeps just the named methods', () => {
    const registry = new SignatureMethodRegistry().only(['HMAC-SHA256', 'PLAINTEXT']);
    assert.deepEqual(registry.names(), ['HMAC-SHA256', 'PLAINTEXT']);
    assert.equal(registry.get('HMAC-SHA1'), undefined);
  });

  it('only() throws on a name the registry lacks', () => {
    assert.throws(() => new SignatureMethodRegistry().only(['HMAC-MD5']), TypeError);
  });

  it('with() adds a custom method', () => {
    const registry = new SignatureMethodRegistry().with(reversed);
    assert.equal(registry.get('X-REVERSED'), reversed);
    assert.equal(registry.names().length, builtInSignatureMethods.length + 1);
  });

  it('with() replaces a method of the same name', () => {
    const mine = { ...reversed, name: 'PLAINTEXT' };
    assert.equal(new SignatureMethodRegistry().with(mine).get('PLAINTEXT'), mine);
  });

  it('with() leaves the original registry as it was', () => {
    const original = new SignatureMethodRegistry();
    original.with(reversed);
    assert.equal(original.get('X-REVERSED'), undefined);
  });

  it('describes PLAINTEXT as not using the base string and the others as using it', () => {
    for (const method of builtInSignatureMethods) {
      assert.equal(method.usesBaseString, method !== PLAINTEXT, method.name);
    }
  });

  it('gives RSA methods the public-key kind with RSA keys, and the rest shared-secret', () => {
    for (const method of builtInSignatureMethods) {
      assert.equal(method.keyKind, method.name.startsWith('RSA') ? 'public-key' : 'shared-secret');
      if (method.keyKind === 'public-key') {
        assert.equal(method.publicKeyType, 'rsa', method.name);
        assert.equal(method.checkPublicKey(rsaPublicKeyPem).asymmetricKeyType, 'rsa');
      }
    }
  });

  it('names the public key a method takes for messages', () => {
    assert.equal(publicKeyLabel(RSA_SHA1), 'RSA public key');
  });
});

describe('RFC 5849 §3.4.2 / §3.4.4 the shared-secret key', () => {
  it('joins the encoded client and token secrets with "&"', () => {
    assert.equal(sharedSecretKey({ clientSecret: 'a b', tokenSecret: 'c&d' }), 'a%20b&c%26d');
  });

  it('keeps the "&" when both secrets are empty or absent', () => {
    assert.equal(sharedSecretKey({}), '&');
  });

  it('HMAC-SHA1 uses "client&" as the key when there is no token secret', () => {
    const expected = createHmac('sha1', 'kd94hf93k423kf44&').update(BASE).digest('base64');
    assert.equal(HMAC_SHA1.sign(BASE, { clientSecret: 'kd94hf93k423kf44' }), expected);
  });

  it('HMAC signs with a key prepared beforehand when one is given, and verifies with it', () => {
    const prepared = {
      hmacKey: (digest: 'sha1' | 'sha256' | 'sha512') => prepareHmacKey(digest, 'p&q'),
    };
    const signature = HMAC_SHA256.sign(BASE, { clientSecret: 'x', tokenSecret: 'y', prepared });
    assert.equal(signature, HMAC_SHA256.sign(BASE, { clientSecret: 'p', tokenSecret: 'q' }));
    assert.ok(HMAC_SHA256.verify(BASE, signature, { prepared }));
  });

  it('PLAINTEXT ignores the base string', () => {
    assert.equal(PLAINTEXT.sign('anything', keys), PLAINTEXT.sign('', keys));
  });
});

describe('RFC 5849 §3.4.2 / §3.4.4 secrets of any characters (migrated from another provider)', () => {
  // Written out by hand from §3.6: UTF-8, then every octet outside the unreserved set as %XX.
  const legacy = { clientSecret: 'hmac secret+with/odd&chars~', tokenSecret: 'tök€n s/cr+t=' };
  const encodedKey = 'hmac%20secret%2Bwith%2Fodd%26chars~&t%C3%B6k%E2%82%ACn%20s%2Fcr%2Bt%3D';

  it('percent-encodes both secrets into the key', () => {
    assert.equal(sharedSecretKey(legacy), encodedKey);
  });

  it('PLAINTEXT signs with the encoded key itself', () => {
    assert.equal(PLAINTEXT.sign(BASE, legacy), encodedKey);
    assert.equal(PLAINTEXT.verify(BASE, encodedKey, legacy), true);
  });

  for (const [method, digest] of [
    [HMAC_SHA1, 'sha1'],
    [HMAC_SHA256, 'sha256'],
    [HMAC_SHA512, 'sha512'],
  ] as const) {
    it(`${method.name} keys the HMAC with the encoded secrets`, () => {
      const expected = createHmac(digest, encodedKey).update(BASE).digest('base64');
      assert.equal(method.sign(BASE, legacy), expected);
      assert.equal(method.verify(BASE, expected, legacy), true);
    });
  }

  it('HMAC-SHA1 keys longer than a block (1,024-byte secrets) are hashed first (RFC 2104)', () => {
    const long = { clientSecret: 'é'.repeat(512), tokenSecret: '/'.repeat(1024) };
    const key = `${'%C3%A9'.repeat(512)}&${'%2F'.repeat(1024)}`;
    const expected = createHmac('sha1', key).update(BASE).digest('base64');
    assert.equal(HMAC_SHA1.sign(BASE, long), expected);
  });
});

describe('RFC 5849 §3.4 verification fails for a changed signature', () => {
  for (const method of builtInSignatureMethods) {
    const signature = method.sign(BASE, keys);
    // The first character: it carries full bits, unlike one next to "=" padding.
    const changed = (signature.startsWith('A') ? 'B' : 'A') + signature.slice(1);

    it(`${method.name} refuses a signature with one character changed`, () => {
      assert.equal(method.verify(BASE, changed, keys), false);
    });

    it(`${method.name} refuses a signature of another length`, () => {
      assert.equal(method.verify(BASE, signature + 'A', keys), false);
      assert.equal(method.verify(BASE, '', keys), false);
    });
  }

  it('HMAC-SHA1 refuses a signature made with another token secret', () => {
    const other = HMAC_SHA1.sign(BASE, { ...keys, tokenSecret: 'x' });
    assert.equal(HMAC_SHA1.verify(BASE, other, keys), false);
  });
});

describe('RFC 5849 §3.4.3 RSA key handling', () => {
  it('refuses to verify without a public key', () => {
    const signature = RSA_SHA256.sign(BASE, keys);
    assert.equal(RSA_SHA256.verify(BASE, signature, { privateKey: keys.privateKey }), false);
  });

  it('throws a TypeError when signing without a private key', () => {
    assert.throws(() => RSA_SHA256.sign(BASE, { publicKey: keys.publicKey }), TypeError);
  });

  it('refuses a signature in non-canonical base64 (one spelling per signature)', () => {
    const signature = RSA_SHA256.sign(BASE, keys);
    assert.equal(RSA_SHA256.verify(BASE, signature.replace(/=+$/, ''), keys), false);
    assert.equal(RSA_SHA256.verify(BASE, ` ${signature}`, keys), false);
  });

  it('refuses a signature made by another key', () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const signature = RSA_SHA256.sign(BASE, { privateKey: other });
    assert.equal(RSA_SHA256.verify(BASE, signature, keys), false);
  });

  it('parses an SPKI public key PEM', () => {
    assert.equal(parseRsaPublicKey(rsaPublicKeyPem).asymmetricKeyType, 'rsa');
  });

  it('parses a PKCS#1 public key PEM', () => {
    const pkcs1 = createPublicKey(rsaPublicKeyPem).export({ type: 'pkcs1', format: 'pem' });
    const key = parseRsaPublicKey(pkcs1.toString());
    assert.equal(RSA_SHA256.verify(BASE, RSA_SHA256.sign(BASE, keys), { publicKey: key }), true);
  });

  it('parses an X.509 certificate PEM to the public key it holds', () => {
    const certificate = readFileSync(
      new URL('../fixtures/rsa-certificate.pem', import.meta.url),
      'utf8',
    );
    const privateKey = createPrivateKey(
      readFileSync(new URL('../fixtures/rsa-private.pem', import.meta.url), 'utf8'),
    );
    const key = parseRsaPublicKey(certificate);
    const signature = RSA_SHA256.sign(BASE, { privateKey });
    assert.equal(RSA_SHA256.verify(BASE, signature, { publicKey: key }), true);
  });

  it('refuses a private key PEM, which would otherwise yield its public half', () => {
    const pem = keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    assert.throws(() => parseRsaPublicKey(pem), /private key/);
    const pkcs1 = keys.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    assert.throws(() => parseRsaPublicKey(pkcs1), /private key/);
  });

  it('rejects a key that is not RSA', () => {
    const { publicKey } = generateKeyPairSync('ed25519');
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    assert.throws(() => parseRsaPublicKey(pem), /not an RSA public key/);
  });

  it('parses a public key of the type asked for, and only that type (parsePublicKey)', () => {
    const { publicKey } = generateKeyPairSync('ed25519');
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    assert.equal(parsePublicKey(pem, 'ed25519').asymmetricKeyType, 'ed25519');
    assert.throws(() => parsePublicKey(rsaPublicKeyPem, 'ed25519'), /not an ED25519 public key/);
  });
});

describe('constant-time string comparison', () => {
  it('is true for equal strings', () => {
    assert.equal(constantTimeEqual('abc', 'abc'), true);
  });

  it('is false for strings of the same length that differ', () => {
    assert.equal(constantTimeEqual('abc', 'abd'), false);
  });

  it('is false for strings of different lengths', () => {
    assert.equal(constantTimeEqual('abc', 'abcd'), false);
  });

  it('compares UTF-8 bytes, so look-alike strings differ', () => {
    assert.equal(constantTimeEqual('é', 'e\u0301'), false);
  });
});
