/**
 * A verification step (pipeline.ts), the Request Body Hash extension: once the signature proved
 * `oauth_body_hash` authentic, the body must be the one that was hashed (with the digest of
 * the signature method), so a body changed on the way is refused like a changed parameter.
 * With PLAINTEXT, which signs nothing (the channel protects the request, §3.4.4), the hash
 * is still compared: a client that sends one learns when its body is not the one it hashed.
 */
import {
  bodyHashDigestByLength,
  computeBodyHash,
  constantTimeEqual,
  OAuthError,
} from '../../protocol/index.ts';
import type { ProtocolParameters } from '../request.ts';

export function checkBodyHash(protocol: ProtocolParameters, rawBody: Uint8Array | undefined): void {
  if (protocol.bodyHash === undefined) return;
  // A method without a digest of its own (PLAINTEXT) is checked with the digest the client
  // chose, told by the length check-protocol-parameters proved to be one of the three.
  const digest =
    protocol.signatureMethod.bodyHashDigest ?? bodyHashDigestByLength(protocol.bodyHash)!;
  const expected = computeBodyHash(digest, rawBody ?? '');
  if (!constantTimeEqual(protocol.bodyHash, expected)) {
    throw new OAuthError(
      'body_hash_invalid',
      `The body does not match oauth_body_hash (${digest.toUpperCase().replace('SHA', 'SHA-')} of the exact bytes sent, base64).`,
    );
  }
}
