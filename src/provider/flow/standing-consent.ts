/**
 * Consent that stands, so the owner is not asked again (docs/identity.md "Sign in with" and
 * "Remembered consent"). §2.2 leaves how the server obtains approval to it: an owner who
 * already allowed a client may be sent straight back.
 *
 * - A live grant (`/oauth/authenticate`): one live token of this owner for this client
 *   covers the requested scope and lasts at least as long as the new token would.
 * - A remembered consent (client setting `rememberConsent: 'same-scope'`, on `/oauth/authorize`
 *   and `/oauth/authenticate`): the owner allowed this client a scope that covers the request.
 */
import type { Client, Store, TokenCredential } from '../../store/types.ts';
import { scopeIncludes } from '../scope.ts';
import type { AuthorizationRequest } from './authorization.ts';
import { usableUntil } from './session-extension.ts';

/** Why no page was shown: a live grant covered the request, or a remembered consent did. */
export type StandingReason = 'grant' | 'remembered';

export interface StandingDependencies {
  readonly store: Store;
  readonly now: () => number;
}

function grantCovers(token: TokenCredential, asked: AuthorizationRequest, now: number): boolean {
  if (token.clientKey !== asked.client.key || token.revokedAt !== null) return false;
  const until = usableUntil(token);
  if (until !== null && until <= now) return false;
  if (!scopeIncludes(token.scope, asked.temporaryCredential.requestedScope)) return false;
  // The grant's own lifetime must cover the new token's (the server's default).
  const lifetime = asked.defaultLifetime;
  if (until === null) return true;
  return lifetime !== null && until - token.issuedAt >= lifetime * 1000;
}

/** The reason the owner need not be asked again, or undefined when the page must ask. */
export async function standingConsent(
  deps: StandingDependencies,
  asked: AuthorizationRequest,
  ownerId: string,
  options: { readonly liveGrant: boolean },
): Promise<StandingReason | undefined> {
  if (asked.client.rememberConsent === 'same-scope') {
    const remembered = await deps.store.consents.find(ownerId, asked.client.key);
    if (
      remembered !== undefined &&
      scopeIncludes(remembered.scope, asked.temporaryCredential.requestedScope)
    ) {
      return 'remembered';
    }
  }
  if (!options.liveGrant) return undefined;
  const now = deps.now();
  const tokens = await deps.store.tokenCredentials.list({ ownerId, clientKey: asked.client.key });
  return tokens.some((token) => grantCovers(token, asked, now)) ? 'grant' : undefined;
}

/** After the owner allowed a 'same-scope' client: remember what they allowed. */
export async function rememberConsent(
  deps: StandingDependencies,
  client: Client,
  ownerId: string,
  scope: string,
): Promise<boolean> {
  if (client.rememberConsent !== 'same-scope') return false;
  const existing = await deps.store.consents.find(ownerId, client.key);
  await deps.store.consents.remember({
    ownerId,
    clientKey: client.key,
    scope,
    since: existing?.since ?? deps.now(),
  });
  return true;
}

export interface RememberedConsentRow {
  readonly client: Client;
  readonly scope: string;
  readonly since: number;
}

/** The owner's remembered consents, and ending one (Connected apps). */
export function createConsentBook(
  deps: StandingDependencies,
  forgotten: (ownerId: string, clientKey: string) => void,
) {
  return {
    /** Remembered consents of clients that still remember (rememberConsent 'same-scope'). */
    async list(ownerId: string): Promise<RememberedConsentRow[]> {
      const rows: RememberedConsentRow[] = [];
      for (const consent of await deps.store.consents.list(ownerId)) {
        const client = await deps.store.clients.find(consent.clientKey);
        if (client?.rememberConsent !== 'same-scope') continue;
        rows.push({ client, scope: consent.scope, since: consent.since });
      }
      return rows;
    },
    /** The next authorization of this client asks again. True when one was remembered. */
    async forget(ownerId: string, clientKey: string): Promise<boolean> {
      const done = await deps.store.consents.forget(ownerId, clientKey);
      if (done) forgotten(ownerId, clientKey);
      return done;
    },
  };
}

export type ConsentBook = ReturnType<typeof createConsentBook>;
