/**
 * RFC 5849 §3.4: signature methods, one descriptor each (HMAC-SHA1 §3.4.2, RSA-SHA1 §3.4.3,
 * PLAINTEXT §3.4.4), plus the SHA-256/512 variants real providers use (same construction,
 * other digest). A descriptor says everything the server needs to know about its method: the
 * key it signs with (both shared secrets, or the client's key pair and what kind of public
 * key that is), sign and verify. A registry lets a server allow a subset or add its own.
 */
import { createPublicKey, sign, timingSafeEqual, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import type { BodyHashDigest } from './body-hash.ts';
import { hmacBase64, prepareHmacKey } from './hmac.ts';
import type { HmacDigest, HmacKey } from './hmac.ts';
import { percentEncode } from './percent-encoding.ts';

/** Key material for signing or verifying one request. */
export interface SignatureKeys {
  /** The client shared secret (HMAC, PLAINTEXT). */
  readonly clientSecret?: string | undefined;
  /** The token shared secret; the empty string when no token is used (§3.4.2). */
  readonly tokenSecret?: string | undefined;
  /** The client's private key, for a public-key method (client side). */
  readonly privateKey?: KeyObject | undefined;
  /** The client's public key (server side), parsed once per client, never per request. */
  readonly publicKey?: KeyObject | undefined;
  /**
   * The shared-secret key of these two secrets already prepared, from a server that keeps
   * prepared keys with its credentials (the provider does); prepared per call when absent.
   */
  readonly prepared?: PreparedKeys | undefined;
}

/** Keys prepared once for one client and token secret pair. */
export interface PreparedKeys {
  /** The shared-secret key (sharedSecretKey) prepared for HMAC with `digest`. */
  hmacKey(digest: HmacDigest): HmacKey;
}

export type { HmacDigest, HmacKey };
export { prepareHmacKey };

interface MethodDescriptor {
  /** The `oauth_signature_method` value. */
  readonly name: string;
  /** False for PLAINTEXT: no base string, and timestamp and nonce may be omitted (§3.4.4). */
  readonly usesBaseString: boolean;
  /**
   * The digest of `oauth_body_hash` with this method (body hash extension); undefined when
   * the method cannot carry one (PLAINTEXT signs no parameters).
   */
  readonly bodyHashDigest?: BodyHashDigest | undefined;
  sign(baseString: string, keys: SignatureKeys): string;
  /** Compares in constant time where a secret is involved. */
  verify(baseString: string, signature: string, keys: SignatureKeys): boolean;
}

/** Signs with the client secret and the token secret (§3.4.2, §3.4.4). */
export interface SharedSecretMethod extends MethodDescriptor {
  readonly keyKind: 'shared-secret';
}

/**
 * Signs with the client's private key; the server keeps only its public key, registered
 * with the client (§3.4.3: "established … in a manner beyond the scope of this specification").
 */
export interface PublicKeyMethod extends MethodDescriptor {
  readonly keyKind: 'public-key';
  /** The node:crypto `asymmetricKeyType` of the client's key: 'rsa', 'ed25519'… */
  readonly publicKeyType: string;
  /**
   * Parses a registered public key (PEM, or an X.509 certificate) once, for `keys.publicKey`;
   * throws a TypeError saying what is wrong with it (a private key, another key type).
   */
  checkPublicKey(pem: string): KeyObject;
}

export type SignatureMethod = SharedSecretMethod | PublicKeyMethod;

/** How messages name the kinds of public key `methods` take: "RSA", "RSA or ED25519". */
export function publicKeyTypes(methods: readonly PublicKeyMethod[]): string {
  return [...new Set(methods.map((method) => method.publicKeyType.toUpperCase()))].join(' or ');
}

/** How messages name the public key a method needs: "RSA public key". */
export function publicKeyLabel(method: PublicKeyMethod): string {
  return `${publicKeyTypes([method])} public key`;
}

/** §3.4.2 / §3.4.4: encoded client secret "&" encoded token secret, "&" always present. */
export function sharedSecretKey(keys: SignatureKeys): string {
  return `${percentEncode(keys.clientSecret ?? '')}&${percentEncode(keys.tokenSecret ?? '')}`;
}

/** Constant-time equality of two strings; unequal lengths still cost a comparison. */
export function constantTimeEqual(actual: string, expected: string): boolean {
  const a = Buffer.from(actual, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  if (a.length !== b.length) {
    timingSafeEqual(b, b);
    return false;
  }
  return timingSafeEqual(a, b);
}

function hmac(name: string, digest: HmacDigest): SharedSecretMethod {
  const compute = (baseString: string, keys: SignatureKeys) =>
    hmacBase64(
      keys.prepared?.hmacKey(digest) ?? prepareHmacKey(digest, sharedSecretKey(keys)),
      baseString,
    );
  return {
    name,
    keyKind: 'shared-secret',
    usesBaseString: true,
    bodyHashDigest: digest,
    sign: compute,
    verify: (baseString, signature, keys) =>
      constantTimeEqual(signature, compute(baseString, keys)),
  };
}

function rsa(name: string, digest: 'sha1' | 'sha256' | 'sha512'): PublicKeyMethod {
  return {
    name,
    keyKind: 'public-key',
    publicKeyType: 'rsa',
    checkPublicKey: parseRsaPublicKey,
    usesBaseString: true,
    bodyHashDigest: digest,
    sign(baseString, keys) {
      if (keys.privateKey === undefined) throw new TypeError(`${name} needs an RSA private key.`);
      return sign(digest, Buffer.from(baseString, 'utf8'), keys.privateKey).toString('base64');
    },
    verify(baseString, signature, keys) {
      if (keys.publicKey === undefined) return false;
      // Only canonical base64 is accepted, so a signature has one spelling.
      const bytes = Buffer.from(signature, 'base64');
      if (bytes.length === 0 || bytes.toString('base64') !== signature) return false;
      return verify(digest, Buffer.from(baseString, 'utf8'), keys.publicKey, bytes);
    },
  };
}

/** §3.4.4: the signature is the key itself; TLS is required around it. */
const plaintext: SharedSecretMethod = {
  name: 'PLAINTEXT',
  keyKind: 'shared-secret',
  usesBaseString: false,
  sign: (_baseString, keys) => sharedSecretKey(keys),
  verify: (_baseString, signature, keys) => constantTimeEqual(signature, sharedSecretKey(keys)),
};

export const HMAC_SHA1 = hmac('HMAC-SHA1', 'sha1');
export const HMAC_SHA256 = hmac('HMAC-SHA256', 'sha256');
export const HMAC_SHA512 = hmac('HMAC-SHA512', 'sha512');
export const RSA_SHA1 = rsa('RSA-SHA1', 'sha1');
export const RSA_SHA256 = rsa('RSA-SHA256', 'sha256');
export const RSA_SHA512 = rsa('RSA-SHA512', 'sha512');
export const PLAINTEXT = plaintext;

export const builtInSignatureMethods: readonly SignatureMethod[] = [
  HMAC_SHA1,
  HMAC_SHA256,
  HMAC_SHA512,
  RSA_SHA1,
  RSA_SHA256,
  RSA_SHA512,
  PLAINTEXT,
];

/** The methods a server accepts, by name. Built once; looked up on every request. */
export class SignatureMethodRegistry {
  readonly #methods: ReadonlyMap<string, SignatureMethod>;

  constructor(methods: Iterable<SignatureMethod> = builtInSignatureMethods) {
    const map = new Map<string, SignatureMethod>();
    for (const method of methods) map.set(method.name, method);
    this.#methods = map;
  }

  get(name: string): SignatureMethod | undefined {
    return this.#methods.get(name);
  }

  names(): string[] {
    return [...this.#methods.keys()];
  }

  /** A registry with only the named methods; throws on a name this registry lacks. */
  only(names: Iterable<string>): SignatureMethodRegistry {
    const picked: SignatureMethod[] = [];
    for (const name of names) {
      const method = this.#methods.get(name);
      if (method === undefined) throw new TypeError(`Unknown signature method "${name}".`);
      picked.push(method);
    }
    return new SignatureMethodRegistry(picked);
  }

  /** A registry with one more (or a replaced) method, for a server's own method (§3.4). */
  with(method: SignatureMethod): SignatureMethodRegistry {
    return new SignatureMethodRegistry([...this.#methods.values(), method]);
  }
}

/** A PEM block of a private key, which createPublicKey would quietly accept. */
const PRIVATE_KEY_PEM = /-----BEGIN [A-Z ]*PRIVATE KEY-----/;

/**
 * Parses a PEM public key (SPKI, or PKCS#1 for RSA) or X.509 certificate once, and checks it
 * is of `type` (a node:crypto `asymmetricKeyType`), for a public-key method's
 * `checkPublicKey`. §3.4.3 leaves how the server gets the client's key open; certificates are
 * common. A private key is refused: the server must never hold the client's.
 */
export function parsePublicKey(pem: string, type: string): KeyObject {
  if (PRIVATE_KEY_PEM.test(pem)) {
    throw new TypeError('This is a private key; give the public key or a certificate.');
  }
  const key = createPublicKey(pem);
  if (key.asymmetricKeyType !== type) {
    throw new TypeError(`The key is not an ${type.toUpperCase()} public key.`);
  }
  return key;
}

/** parsePublicKey for the RSA methods (§3.4.3). */
export function parseRsaPublicKey(pem: string): KeyObject {
  return parsePublicKey(pem, 'rsa');
}
