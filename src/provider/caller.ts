/**
 * The verified caller the provider hands to the HTTP layer (`/api/me`, the middleware's
 * `request.oauth`, the gateway's identity headers): who the client is, for which owner it
 * acts, under what scope. No secrets: no client secret, token secret or key material.
 */
import type { Parameter } from '../protocol/index.ts';
import type { Client, IdentitySource, Owner, TokenCredential } from '../store/types.ts';
import { effectiveScope } from './scope.ts';
import type { RateLimitStanding } from './verify/rate-limits.ts';

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

/**
 * Who is calling: the client, the owner it acts for (null when signed by the client alone), the
 * scope (the token's, within its client's scope ceiling).
 */
export interface VerifiedCaller {
  readonly client: { readonly key: string; readonly name: string };
  readonly owner: CallerOwner | null;
  readonly scope: string | null;
  /** The token credential's identifier, or null for a two-legged request. */
  readonly token: string | null;
}

/** A verified protected-resource request (§3): its caller and what the signature covered. */
export interface VerifiedResourceRequest {
  readonly caller: VerifiedCaller;
  /** The non-protocol parameters the signature covered, decoded, in the order received. */
  readonly parameters: {
    readonly query: readonly Parameter[];
    readonly form: readonly Parameter[];
    /** Non-protocol `Authorization` header pairs not also in the query or body (§3.4.1.3.1). */
    readonly header: readonly Parameter[];
  };
  /** The client's request-rate standing (RateLimit-* fields), when the provider counts it. */
  readonly rateLimit?: RateLimitStanding | undefined;
}

export function describeCaller(
  client: Client,
  token: TokenCredential | undefined,
  owner: Owner | undefined,
): VerifiedCaller {
  return {
    client: { key: client.key, name: client.name },
    owner:
      owner === undefined
        ? null
        : { id: owner.id, subject: owner.subject, name: owner.name, source: owner.source },
    // What the token may do now: within its client's current ceiling (scope.ts).
    scope: token === undefined ? null : effectiveScope(token.scope, client.scopes),
    token: token === undefined ? null : token.token,
  };
}
