/**
 * The verified caller the provider hands to the HTTP layer (`/api/me`, the middleware's
 * `request.oauth`, the gateway's identity headers): who the client is, for which owner it
 * acts, under what scope. No secrets.
 */
import type { IdentitySource, Owner, TokenCredential } from '../store/types.ts';
import type { VerifiedRequest } from './request.ts';

/** The owner a client acts for, as an API sees it. */
export interface CallerOwner {
  /** Latchkey's own id of the owner. */
  readonly id: string;
  /** The owner's stable id in its source: what the API knows the user by. */
  readonly subject: string;
  /** The display name (a local owner's username). */
  readonly name: string;
  readonly source: IdentitySource;
}

/** Who is calling: the client, the owner it acts for (null when signed by the client alone), the scope. */
export interface VerifiedCaller {
  readonly client: { readonly key: string; readonly name: string };
  readonly owner: CallerOwner | null;
  readonly scope: string | null;
  /** The token credential's identifier, or null for a two-legged request. */
  readonly token: string | null;
}

/** A verified protected-resource request (§3) and its caller. */
export interface VerifiedResourceRequest extends VerifiedRequest {
  readonly caller: VerifiedCaller;
}

export function describeCaller(
  verified: VerifiedRequest,
  token: TokenCredential | undefined,
  owner: Owner | undefined,
): VerifiedCaller {
  return {
    client: { key: verified.client.key, name: verified.client.name },
    owner:
      owner === undefined
        ? null
        : { id: owner.id, subject: owner.subject, name: owner.name, source: owner.source },
    scope: token === undefined ? null : token.scope,
    token: token === undefined ? null : token.token,
  };
}
