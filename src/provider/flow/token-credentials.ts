/**
 * §2.3: the token request. The temporary credential must be authorized, unexpired, unused,
 * issued to this client, and the verifier must match (constant time, limited guesses, each
 * counted before it is compared).
 * The exchange itself is one atomic store step, so a credential is consumed once only.
 */
import { OAuthError } from '../../protocol/index.ts';
import type { Store, TemporaryCredential } from '../../store/types.ts';
import type { Policy } from '../policy.ts';
import type { IncomingRequest } from '../request.ts';
import { newIdentifier, newSecret, normalizeTypingCode } from '../secrets.ts';
import { sessionGrant, startSession } from './session-extension.ts';
import type { IssuedTokenCredentials, OwnerNamed } from './session-extension.ts';
import { verifyRequest } from '../verify/verify-request.ts';
import type { VerifyDependencies } from '../verify/verify-request.ts';

export interface TokenDependencies extends VerifyDependencies {
  readonly store: Store;
  readonly policy: Policy;
}

export type { IssuedTokenCredentials } from './session-extension.ts';

export async function exchangeTokenCredentials(
  deps: TokenDependencies,
  request: IncomingRequest,
): Promise<IssuedTokenCredentials> {
  const verified = await verifyRequest(deps, request, { kind: 'exchange', tokenRequired: true });
  const temporary = verified.temporaryCredential!;
  const now = deps.now();
  checkExchangeable(temporary, now);
  // The try is counted before the verifier is compared, atomically in the store: guesses
  // sent at once on many connections cannot all be compared before the first is counted.
  const attempt = await deps.store.temporaryCredentials.recordVerifierAttempt(
    temporary.token,
    deps.policy.maxVerifierFailures,
  );
  if (attempt === 0) {
    throw new OAuthError(
      'verifier_invalid',
      'Too many verifier tries; this request was discarded. Start the flow again.',
    );
  }
  // Only a code shown for typing (constrained device, oob) forgives case and dashes; a
  // full verifier is compared exactly, or its letters' case would be a free guess.
  const typed = verified.client.constrainedDevice && temporary.callback === 'oob';
  if (!verifierMatches(deps.store, verified.protocol.verifier!, temporary.verifier ?? '', typed)) {
    throw new OAuthError(
      'verifier_invalid',
      attempt >= deps.policy.maxVerifierFailures
        ? 'oauth_verifier does not match, and that was the last try: start the flow again.'
        : 'oauth_verifier does not match.',
    );
  }
  // A client with the session extension gets a short-lived token and a session handle.
  const session = startSession(verified.client, deps.policy, now, temporary.approvedLifetime);
  const issue = {
    token: newIdentifier(),
    secret: newSecret(),
    clientKey: verified.client.key,
    ownerId: temporary.ownerId!,
    scope: temporary.approvedScope ?? '',
    issuedAt: now,
    expiresAt: temporary.approvedLifetime === null ? null : now + temporary.approvedLifetime * 1000,
    ...session?.fields,
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
  const identity = verified.client.tokenResponseIdentity
    ? await ownerNamed(deps.store, issue.ownerId)
    : undefined;
  return {
    token: issue.token,
    secret: issue.secret,
    ...(session === undefined ? {} : { session: sessionGrant(session.handle, issue, now) }),
    ...(identity === undefined ? {} : { identity }),
  };
}

/**
 * Who approved, for a client that asked to be told (Twitter's and Flickr's token response): a
 * "Sign in with" client learns the owner without a second call. An owner removed since the
 * approval is not named.
 */
async function ownerNamed(store: Store, ownerId: string): Promise<OwnerNamed | undefined> {
  const owner = await store.owners.findById(ownerId);
  return owner === undefined ? undefined : { userId: owner.subject, screenName: owner.name };
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

/**
 * The store holds the verifier's digest only, keyed with the sealing key where one is set
 * (store/sealing.ts verifierDigestWith): the sent one is digested the same way and the
 * digests compared in constant time. Typed codes are compared without case, spaces or dashes
 * (the stored one was digested normalized).
 */
function verifierMatches(store: Store, sent: string, stored: string, typed: boolean): boolean {
  return store.secrets.verifierMatches(typed ? normalizeTypingCode(sent) : sent, stored);
}
