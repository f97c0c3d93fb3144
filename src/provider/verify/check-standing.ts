/**
 * Verification steps that say what only the client itself may learn, so they run after its
 * signature checked out (§3.2): that it is disabled, and that its token was revoked or has
 * expired.
 */
import { OAuthError } from '../../protocol/index.ts';
import type { Client, TokenCredential } from '../../store/types.ts';
import type { RequestKind } from '../request.ts';

/** §3.2: a disabled client's requests are refused, told only to the client. */
export function checkClientEnabled(client: Client): void {
  if (!client.disabled) return;
  throw new OAuthError(
    'consumer_key_rejected',
    'This client is disabled on this server; its requests are refused until it is enabled.',
  );
}

/**
 * §3.2 ("the token … is valid"): not revoked by its owner, not past its lifetime (but a
 * renewal, session extension, is how an expired token is replaced).
 */
export function checkTokenStanding(
  token: TokenCredential | undefined,
  nowMs: number,
  kind: RequestKind,
  tokenMayBeExpired: boolean | undefined,
): void {
  if (token === undefined) return;
  if (token.revokedAt !== null)
    throw new OAuthError('token_revoked', 'The owner revoked this token.');
  const expiryChecked = kind !== 'renewal' && tokenMayBeExpired !== true;
  if (expiryChecked && token.expiresAt !== null && token.expiresAt <= nowMs) {
    throw new OAuthError('token_expired', 'This token has expired.');
  }
}
