/**
 * Invalidation by the client (Twitter's `oauth/invalidate_token`, the OAuth Session draft's
 * "Authorization Revocation"): a client ends a token it holds, without the owner. The
 * request is an ordinary signed request with that token, so only its holder can end it; the
 * token's revocation is the owner's (the same store step, the same announcement), so every
 * instance refuses it as soon as it refuses a token the owner revoked.
 *
 * An expired token whose session can still renew it (the session extension) is accepted too:
 * the session is live, and ending its token is how the client ends the session (renewal
 * refuses a revoked token). Any other expired token is already dead: 401 token_expired.
 */
import { OAuthError } from '../../protocol/index.ts';
import type { IncomingRequest } from '../request.ts';
import { usableUntil } from './session-extension.ts';
import { verifyRequest } from '../verify/verify-request.ts';
import type { VerifyDependencies } from '../verify/verify-request.ts';
import type { ProviderEvents } from '../events.ts';

export interface InvalidationDependencies extends VerifyDependencies {
  readonly events: ProviderEvents;
}

/** Revokes the token the request is signed with; returns it. 401 token_revoked the second time. */
export async function invalidateToken(
  deps: InvalidationDependencies,
  request: IncomingRequest,
): Promise<{ readonly token: string }> {
  const verified = await verifyRequest(deps, request, {
    kind: 'resource',
    tokenRequired: true,
    tokenMayBeExpired: true,
  });
  const credential = verified.tokenCredential!;
  const token = credential.token;
  const now = deps.now();
  if (credential.expiresAt !== null && credential.expiresAt <= now) {
    const sessionEnd = usableUntil(credential);
    const renewable =
      verified.client.sessionExtension &&
      credential.sessionHandleHash !== null &&
      (sessionEnd === null || sessionEnd > now);
    if (!renewable) throw new OAuthError('token_expired', 'This token has expired.');
  }
  // Atomic in the store: of two concurrent invalidations only one revokes.
  if (!(await deps.store.tokenCredentials.revoke(token, now))) {
    throw new OAuthError('token_revoked', 'This token was already invalidated or revoked.');
  }
  deps.events.emit('token.revoked', {
    token,
    ownerId: credential.ownerId,
    clientKey: verified.client.key,
    by: 'client',
  });
  return { token };
}
