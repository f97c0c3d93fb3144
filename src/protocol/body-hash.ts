/**
 * The OAuth Request Body Hash extension (`oauth_body_hash`): a signed digest of a body that
 * is not form-encoded, so the signature covers it too. The digest follows the signature
 * method: SHA-1 for the SHA-1 methods (as the extension says), SHA-256 and SHA-512 for their
 * variants. PLAINTEXT signs no parameters, so it has none of its own: a client that sends a
 * body hash with it picked the digest itself, and the hash's length tells which. A
 * form-encoded body never carries
 * one: its parameters are signed already (§3.4.1.3.1).
 */
import { createHash } from 'node:crypto';

export type BodyHashDigest = 'sha1' | 'sha256' | 'sha512';

/** base64 of the digest of the body's bytes (an absent body hashes as the empty string). */
export function computeBodyHash(digest: BodyHashDigest, body: Uint8Array | string): string {
  return createHash(digest).update(body).digest('base64');
}

const DIGEST_BY_LENGTH: ReadonlyMap<number, BodyHashDigest> = new Map([
  [28, 'sha1'],
  [44, 'sha256'],
  [88, 'sha512'],
]);

/** The digest whose base64 is as long as `value` (28, 44 or 88 characters), if any. */
export function bodyHashDigestByLength(value: string): BodyHashDigest | undefined {
  return DIGEST_BY_LENGTH.get(value.length);
}
