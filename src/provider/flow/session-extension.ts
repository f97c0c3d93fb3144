/**
 * The session extension (OAuth Session 1.0 draft, as Yahoo and Xero partner apps use it), for
 * clients registered with it (off by default). The owner's authorization becomes a session:
 * each token credential is short-lived (`oauth_expires_in`), and the client renews it at the
 * token endpoint with the session handle it received (`oauth_session_handle`), until the
 * session ends (`oauth_authorization_expires_in`) or the owner revokes it. A renewal is signed
 * with the token it renews, expired or not; it returns a new token and secret, and the old
 * ones are dead at once (one atomic store step, so of two concurrent renewals one wins).
 * Only the SHA-256 of a handle is stored; the handle keeps its value across renewals.
 */
import { createHash } from 'node:crypto';
import { collectParameters, constantTimeEqual, OAuthError } from '../../protocol/index.ts';
import type { Client, NewTokenCredential, TokenCredential } from '../../store/types.ts';
import type { Policy } from '../policy.ts';
import type { IncomingRequest } from '../request.ts';
import { newIdentifier, newSecret } from '../secrets.ts';
import { verifyRequest } from '../verify/verify-request.ts';
import type { VerifyDependencies } from '../verify/verify-request.ts';
import type { ProviderEvents } from '../events.ts';

/** What a token response adds for a session (seconds are whole, rounded down). */
export interface SessionGrant {
  readonly handle: string;
  /** `oauth_expires_in`: seconds until this token credential expires. */
  readonly expiresIn: number;
  /** `oauth_authorization_expires_in`: seconds until the session ends. */
  readonly authorizationExpiresIn: number;
}

export interface IssuedTokenCredentials {
  readonly token: string;
  readonly secret: string;
  /** Present for a client with the session extension. */
  readonly session?: SessionGrant | undefined;
  /** Who the owner is, for a client registered with `tokenResponseIdentity`. */
  readonly identity?: OwnerNamed | undefined;
}

/** The owner as the token response names it (Twitter's `user_id` and `screen_name`). */
export interface OwnerNamed {
  /** The owner's stable subject within its identity source. */
  readonly userId: string;
  /** The owner's display name. */
  readonly screenName: string;
}

/**
 * Until when a token credential is of use: its expiry, or for a token with a session, the
 * session's end (it can be renewed until then). null: until revoked.
 */
export function usableUntil(
  token: Pick<TokenCredential, 'expiresAt' | 'sessionHandleHash' | 'sessionExpiresAt'>,
): number | null {
  return token.sessionHandleHash === null ? token.expiresAt : token.sessionExpiresAt;
}

export function hashSessionHandle(handle: string): string {
  return createHash('sha256').update(handle).digest('hex');
}

/** The session fields of a first token credential: a new handle, the session's end. */
export function startSession(
  client: Client,
  policy: Policy,
  now: number,
  approvedLifetime: number | null,
) {
  if (!client.sessionExtension) return undefined;
  const handle = newSecret();
  const sessionExpiresAt =
    now + (approvedLifetime ?? policy.sessionExtensionLifetimeSeconds) * 1000;
  return {
    handle,
    fields: {
      expiresAt: tokenExpiry(policy, now, sessionExpiresAt),
      sessionHandleHash: hashSessionHandle(handle),
      sessionExpiresAt,
    },
  };
}

/** A session's token lives the policy's token lifetime, never past the session's end. */
function tokenExpiry(policy: Policy, now: number, sessionExpiresAt: number): number {
  return Math.min(now + policy.sessionTokenLifetimeSeconds * 1000, sessionExpiresAt);
}

export function sessionGrant(
  handle: string,
  credential: Pick<NewTokenCredential, 'expiresAt' | 'sessionExpiresAt'>,
  now: number,
): SessionGrant {
  const seconds = (at: number | null | undefined) =>
    Math.max(0, Math.floor(((at ?? now) - now) / 1000));
  return {
    handle,
    expiresIn: seconds(credential.expiresAt),
    authorizationExpiresIn: seconds(credential.sessionExpiresAt),
  };
}

/** Whether a token request is a renewal: it carries `oauth_session_handle`. */
export function carriesSessionHandle(request: IncomingRequest): boolean {
  try {
    return collectParameters(request).protocol.has('oauth_session_handle');
  } catch {
    return false; // malformed: the exchange's verification reports it
  }
}

/** The token endpoint with `oauth_session_handle`: a new token credential for the session. */
export async function renewTokenCredentials(
  deps: VerifyDependencies & { readonly events: ProviderEvents },
  request: IncomingRequest,
): Promise<IssuedTokenCredentials> {
  const verified = await verifyRequest(deps, request, { kind: 'renewal', tokenRequired: true });
  const old = verified.tokenCredential!;
  const handle = verified.protocol.sessionHandle!;
  const now = deps.now();
  // Hashes of equal length, compared in constant time: no timing on how much matched.
  const sentHash = hashSessionHandle(handle);
  if (
    !verified.client.sessionExtension ||
    old.sessionHandleHash === null ||
    !constantTimeEqual(sentHash, old.sessionHandleHash)
  ) {
    throw new OAuthError(
      'session_handle_rejected',
      'This oauth_session_handle does not belong to this token, or the client has no sessions.',
    );
  }
  if (old.sessionExpiresAt !== null && old.sessionExpiresAt <= now) {
    throw new OAuthError(
      'session_expired',
      'The session has ended; ask the owner to authorize the app again.',
    );
  }
  const sessionExpiresAt =
    old.sessionExpiresAt ?? now + deps.policy.sessionExtensionLifetimeSeconds * 1000;
  const renewed: NewTokenCredential = {
    token: newIdentifier(),
    secret: newSecret(),
    clientKey: old.clientKey,
    ownerId: old.ownerId,
    scope: old.scope,
    issuedAt: now,
    expiresAt: tokenExpiry(deps.policy, now, sessionExpiresAt),
    sessionHandleHash: old.sessionHandleHash,
    sessionExpiresAt,
  };
  const created = await deps.store.tokenCredentials.renew(
    old.token,
    old.sessionHandleHash,
    now,
    renewed,
  );
  if (created === undefined) {
    // Another renewal of this token won, or the owner revoked it meanwhile.
    throw new OAuthError('token_used', 'This token was already renewed or revoked.');
  }
  // The client's own act, recorded with the owner as issue and revocation are (the audit trail).
  deps.events.emit('token.renewed', {
    token: old.token,
    ownerId: old.ownerId,
    clientKey: old.clientKey,
    by: 'client',
  });
  return {
    token: renewed.token,
    secret: renewed.secret,
    session: sessionGrant(handle, renewed, now),
  };
}
