/**
 * An owner's token credentials one by one: tokens "can be revoked individually" (the spec's
 * introduction) and "the owner should be able to revoke issued token credentials" (§2.3). Each
 * live token is shown with when it was issued, the device it was first used from and its last
 * use, never its secret; revoking one leaves the owner's other tokens, of that app too, working.
 */
import { createHash } from 'node:crypto';
import type { Store, TokenCredential } from '../../store/types.ts';
import { NotFoundError } from '../input-error.ts';
import { describeDevice } from './device-hint.ts';
import { usableUntil } from './session-extension.ts';

/** A live token as its owner sees it (the pages, an embedder's own account page). */
export interface OwnedToken {
  /**
   * Names the token in the owner's pages and forms without showing the token itself: a
   * digest of it, stable for the token's life.
   */
  readonly id: string;
  readonly token: string;
  readonly clientKey: string;
  readonly scope: string;
  readonly issuedAt: number;
  /** When it stops working (for a renewable token, when its session ends); null: until revoked. */
  readonly expiresAt: number | null;
  readonly lastUsedAt: number | null;
  /** The User-Agent of its first verified request; null until it is used. */
  readonly deviceHint: string | null;
  /** The device hint in a readable short form ("curl/8.5", "Firefox on Linux"). */
  readonly device: string | null;
}

/** The id of a token in the owner's pages: 128 bits of its SHA-256, base64url. */
export function ownedTokenId(token: string): string {
  return createHash('sha256').update(token).digest('base64url').slice(0, 22);
}

function ownedView(token: TokenCredential): OwnedToken {
  return {
    id: ownedTokenId(token.token),
    token: token.token,
    clientKey: token.clientKey,
    scope: token.scope,
    issuedAt: token.issuedAt,
    expiresAt: usableUntil(token),
    lastUsedAt: token.lastUsedAt,
    deviceHint: token.deviceHint,
    device: token.deviceHint === null ? null : describeDevice(token.deviceHint),
  };
}

export function createOwnedTokens(
  store: Store,
  now: () => number,
  flushLastUse: () => Promise<void>,
  revoke: (token: string, ownerId: string) => Promise<boolean>,
) {
  return {
    /**
     * The owner's live tokens (of one client with `clientKey`), the earliest issued first, last
     * uses and device hints current. Never a secret.
     */
    async ofOwner(
      ownerId: string,
      filter?: { readonly clientKey?: string | undefined },
    ): Promise<OwnedToken[]> {
      await flushLastUse(); // last uses and device hints are batched; show the latest
      const at = now();
      const tokens = await store.tokenCredentials.list({
        ownerId,
        ...(filter?.clientKey === undefined ? {} : { clientKey: filter.clientKey }),
      });
      return tokens
        .filter((token) => {
          const until = usableUntil(token);
          return token.revokedAt === null && (until === null || until > at);
        })
        .map(ownedView);
    },

    /**
     * Revokes the owner's token with this id (from {@link ofOwner}); the owner's other tokens
     * keep working. Another owner's token is refused exactly as a token that does not exist
     * (NotFoundError), so the answer says nothing of it. Revoking a revoked token again is
     * no error.
     */
    async revokeOwned(ownerId: string, id: string): Promise<OwnedToken> {
      const found = (await store.tokenCredentials.list({ ownerId })).find(
        (token) => ownedTokenId(token.token) === id,
      );
      if (found === undefined) throw new NotFoundError('No such token.');
      await revoke(found.token, ownerId);
      return ownedView(found);
    },
  };
}

export type OwnedTokens = ReturnType<typeof createOwnedTokens>;
