/**
 * §2.3: the token request. The temporary credential must be authorized, unexpired, unused,
 * issued to this client, and the verifier must match (constant time, limited guesses).
 * The exchange itself is one atomic store step, so a credential is consumed once only.
 */
import { constantTimeEqual, OAuthError } from '../protocol/index.ts';
import type { Store, TemporaryCredential } from '../store/types.ts';
import type { Policy } from './policy.ts';
import type { IncomingRequest } from './request.ts';
import { newIdentifier, newSecret, normalizeTypingCode } from './secrets.ts';
import { verifyRequest } from './verify-request.ts';
import type { VerifyDependencies } from './verify-request.ts';

export interface TokenDependencies extends VerifyDependencies {
  readonly store: Store;
  readonly policy: Policy;
}

export interface IssuedTokenCredentials {
  readonly token: string;
  readonly secret: string;
}

export async function exchangeTokenCredentials(
  deps: TokenDependencies,
  request: IncomingRequest,
): Promise<IssuedTokenCredentials> {
  const verified = await verifyRequest(deps, request, { kind: 'exchange', tokenRequired: true });
  const temporary = verified.temporaryCredential!;
  const now = deps.now();
  checkExchangeable(temporary, now);
  // Only a code shown for typing (constrained device, oob) forgives case and dashes; a
  // full verifier is compared exactly, or its letters' case would be a free guess.
  const typed = verified.client.constrainedDevice && temporary.callback === 'oob';
  if (!verifierMatches(verified.protocol.verifier!, temporary.verifier ?? '', typed)) {
    const failures = await deps.store.temporaryCredentials.recordVerifierFailure(temporary.token);
    if (failures >= deps.policy.maxVerifierFailures) {
      await deps.store.temporaryCredentials.remove(temporary.token);
      throw new OAuthError(
        'verifier_invalid',
        'Wrong verifier too many times; the request was discarded. Start the flow again.',
      );
    }
    throw new OAuthError('verifier_invalid', 'oauth_verifier does not match.');
  }
  const issue = {
    token: newIdentifier(),
    secret: newSecret(),
    clientKey: verified.client.key,
    ownerId: temporary.ownerId!,
    scope: temporary.approvedScope ?? '',
    issuedAt: now,
    expiresAt: temporary.approvedLifetime === null ? null : now + temporary.approvedLifetime * 1000,
  };
  const consumed = await deps.store.temporaryCredentials.exchange(
    temporary.token,
    verified.client.key,
    now,
    issue,
  );
  if (consumed === undefined) {
    throw new OAuthError('token_used', 'These temporary credentials were already exchanged.');
  }
  return { token: issue.token, secret: issue.secret };
}

function checkExchangeable(temporary: TemporaryCredential, now: number): void {
  if (temporary.state === 'consumed') {
    throw new OAuthError('token_used', 'These temporary credentials were already exchanged.');
  }
  if (temporary.state === 'denied') {
    throw new OAuthError('user_refused', 'The resource owner denied this request.');
  }
  if (temporary.expiresAt <= now) {
    throw new OAuthError('token_expired', 'These temporary credentials have expired; start again.');
  }
  if (temporary.state === 'issued') {
    throw new OAuthError(
      'permission_unknown',
      'The resource owner has not authorized this request yet.',
    );
  }
}

/** Typed codes are compared without case, spaces or dashes; both sides are normalized. */
function verifierMatches(sent: string, expected: string, typed: boolean): boolean {
  if (!typed) return constantTimeEqual(sent, expected);
  return constantTimeEqual(normalizeTypingCode(sent), normalizeTypingCode(expected));
}
