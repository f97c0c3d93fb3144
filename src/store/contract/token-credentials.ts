/** The token credentials part of the store contract (RFC 5849 §2.3, §3). */
import type { NewTokenCredential, TokenCredential } from '../records.ts';

export interface TokenCredentialStore {
  /**
   * Throws StoreConflictError when the token exists.
   * Called by: provider/flow/tokens.ts issue (operator-provisioned tokens).
   */
  create(credential: NewTokenCredential): Promise<TokenCredential>;
  /** Called by: the verification step load-credentials (§3), tokens. */
  find(token: string): Promise<TokenCredential | undefined>;
  /** Called by: provider/flow/tokens.ts list; connections list. */
  list(filter?: {
    readonly ownerId?: string;
    readonly clientKey?: string;
  }): Promise<TokenCredential[]>;
  /**
   * Sets revokedAt if not yet revoked; true when this call revoked it.
   * Called by: provider/flow/tokens.ts revoke; invalidateToken.
   */
  revoke(token: string, now: number): Promise<boolean>;
  /**
   * Session extension: the token `token`, unrevoked, holding the session handle whose hash is
   * `handleHash`, in a session that has not ended at `now`, is deleted and `renewed` created
   * in its place, in one atomic step. Returns the new credential, or undefined when any
   * condition fails (so of two concurrent renewals of one token only one succeeds).
   * Called by: provider/flow/session-extension.ts (session handle renewal).
   */
  renew(
    token: string,
    handleHash: string,
    now: number,
    renewed: NewTokenCredential,
  ): Promise<TokenCredential | undefined>;
  /**
   * Revokes every live token of an owner for a client (a token whose session can still renew
   * it counts as live, expired or not); returns how many.
   * Called by: provider/flow/tokens.ts revokeGrant; connections revoke.
   */
  revokeGrant(ownerId: string, clientKey: string, now: number): Promise<number>;
  /**
   * Records last use for many tokens at once (written in batches, off the hot path), and the
   * device hint of a token in `devices` when the token has none yet (the first one stays), in
   * the same statement.
   * Called by: provider flushLastUse (batched last-use times).
   */
  touch(
    lastUsed: ReadonlyMap<string, number>,
    devices?: ReadonlyMap<string, string>,
  ): Promise<void>;
  /** Called by: no provider step (metrics and tools). */
  count(): Promise<number>;
}
