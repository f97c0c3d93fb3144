/**
 * Two signature methods Latchkey does not ship, written as a server would write its own
 * (RFC 5849 §3.4 leaves room for them) against the public API, `latchkey/protocol`: ED25519
 * signs with a key pair, as RSA-SHA1 does (§3.4.3); HMAC-SHA384 with the two shared secrets,
 * as HMAC-SHA1 does (§3.4.2). Tests add them with the registry's `with()`.
 */
import { createHmac, sign, verify } from 'node:crypto';
import { constantTimeEqual, parsePublicKey, sharedSecretKey } from '../../src/protocol/index.ts';
import type { PublicKeyMethod, SharedSecretMethod } from '../../src/protocol/index.ts';

export const ED25519: PublicKeyMethod = {
  name: 'ED25519',
  keyKind: 'public-key',
  publicKeyType: 'ed25519',
  usesBaseString: true,
  bodyHashDigest: 'sha256',
  checkPublicKey: (pem) => parsePublicKey(pem, 'ed25519'),
  sign(baseString, keys) {
    if (keys.privateKey === undefined) throw new TypeError('ED25519 needs a private key.');
    return sign(null, Buffer.from(baseString), keys.privateKey).toString('base64');
  },
  verify(baseString, signature, keys) {
    if (keys.publicKey === undefined) return false;
    return verify(null, Buffer.from(baseString), keys.publicKey, Buffer.from(signature, 'base64'));
  },
};

const hmacSha384 = (baseString: string, keys: Parameters<SharedSecretMethod['sign']>[1]) =>
  createHmac('sha384', sharedSecretKey(keys)).update(baseString).digest('base64');

export const HMAC_SHA384: SharedSecretMethod = {
  name: 'HMAC-SHA384',
  keyKind: 'shared-secret',
  usesBaseString: true,
  sign: hmacSha384,
  verify: (baseString, signature, keys) =>
    constantTimeEqual(signature, hmacSha384(baseString, keys)),
};
