/**
 * Token credentials after issue: operator-provisioned tokens, listing, and revocation by
 * the owner (§2.3 "the owner should be able to revoke"). Revocation is read on the next
 * request, and announced on `events` so caches on other instances can drop the token.
 */
import type { Store, TokenCredential } from '../../store/types.ts';
import { StoreConflictError } from '../../store/types.ts';
import { checkIdentifier, checkSecret } from '../clients/credential-values.ts';
import { InputError, NotFoundError } from '../input-error.ts';
import type { Policy } from '../policy.ts';
import { checkRequestedScope, effectiveScope, outsideCeiling } from '../scope.ts';
import { newIdentifier, newSecret } from '../secrets.ts';
import type { ProviderEvents } from '../events.ts';

export interface TokenIssue {
  readonly clientKey: string;
  readonly ownerId: string;
  readonly scope?: string | undefined;
  /** Seconds; defaults to the policy's token lifetime. */
  readonly lifetime?: number | null | undefined;
  /** Existing credentials, for migrating from another provider. */
  readonly token?: string | undefined;
  readonly secret?: string | undefined;
}

export function createTokenLedger(
  store: Store,
  policy: Policy,
  now: () => number,
  events: ProviderEvents,
) {
  return {
    /** Like a provider's "create my access token" button: no flow, the operator vouches. */
    async issue(input: TokenIssue): Promise<TokenCredential> {
      if (input.token !== undefined) checkIdentifier('token', 'A token', input.token);
      if (input.secret !== undefined) checkSecret('secret', 'A token secret', input.secret);
      const client = await store.clients.find(input.clientKey);
      if (client === undefined) throw new NotFoundError(`No client with key ${input.clientKey}.`);
      let scope: string;
      try {
        scope = checkRequestedScope(input.scope, policy);
      } catch (error) {
        throw new InputError('scope', error instanceof Error ? error.message : 'Unknown scope.');
      }
      // The operator too issues within the client's ceiling; the default is narrowed to it.
      const asked = input.scope !== undefined && input.scope.trim() !== '';
      if (!asked) scope = effectiveScope(scope, client.scopes);
      const beyond = outsideCeiling(scope, client.scopes);
      if (beyond.length > 0) {
        throw new InputError(
          'scope',
          `${beyond.join(' ')} is outside this client's scopes (${client.scopes.join(', ')}).`,
        );
      }
      const issuedAt = now();
      const lifetime = input.lifetime === undefined ? policy.tokenLifetimeSeconds : input.lifetime;
      try {
        const issued = await store.tokenCredentials.create({
          token: input.token ?? newIdentifier(),
          secret: input.secret ?? newSecret(),
          clientKey: input.clientKey,
          ownerId: input.ownerId,
          scope,
          issuedAt,
          expiresAt: lifetime === null ? null : issuedAt + lifetime * 1000,
        });
        events.emit('token.issued', {
          ownerId: issued.ownerId,
          clientKey: issued.clientKey,
          scope: issued.scope,
        });
        return issued;
      } catch (error) {
        if (error instanceof StoreConflictError)
          throw new InputError('token', 'A token with this value exists.');
        throw error;
      }
    },

    list: (filter?: { readonly ownerId?: string; readonly clientKey?: string }) =>
      store.tokenCredentials.list(filter),

    find: (token: string) => store.tokenCredentials.find(token),

    /** Revokes one token; when `ownerId` is given the token must be that owner's. */
    async revoke(token: string, ownerId?: string): Promise<boolean> {
      const found = await store.tokenCredentials.find(token);
      if (found === undefined || (ownerId !== undefined && found.ownerId !== ownerId)) {
        throw new NotFoundError('No such token.');
      }
      const revoked = await store.tokenCredentials.revoke(token, now());
      if (revoked) {
        events.emit('token.revoked', {
          token,
          ownerId: found.ownerId,
          clientKey: found.clientKey,
        });
      }
      return revoked;
    },

    /** "Revoke" on the Connected apps page: every token of this owner for this client. */
    async revokeGrant(ownerId: string, clientKey: string): Promise<number> {
      const count = await store.tokenCredentials.revokeGrant(ownerId, clientKey, now());
      if (count > 0) events.emit('grant.revoked', { ownerId, clientKey, count });
      return count;
    },
  };
}

export type TokenLedger = ReturnType<typeof createTokenLedger>;
