/**
 * Step 8 of verification, the Request Body Hash extension: once the signature proved
 * `oauth_body_hash` authentic, the body must be the one that was hashed (with the digest of
 * the signature method), so a body changed on the way is refused like a changed parameter.
 */
import { computeBodyHash, constantTimeEqual, OAuthError } from '../../protocol/index.ts';
import type { ProtocolParameters } from '../request.ts';

export function checkBodyHash(protocol: ProtocolParameters, rawBody: Uint8Array | undefined): void {
  if (protocol.bodyHash === undefined) return;
  // check-protocol-parameters refused a body hash with a method that has no digest.
  const digest = protocol.signatureMethod.bodyHashDigest!;
  const expected = computeBodyHash(digest, rawBody ?? '');
  if (!constantTimeEqual(protocol.bodyHash, expected)) {
    throw new OAuthError(
      'body_hash_invalid',
      `The body does not match oauth_body_hash (${digest.toUpperCase().replace('SHA', 'SHA-')} of the exact bytes sent, base64).`,
    );
  }
}
