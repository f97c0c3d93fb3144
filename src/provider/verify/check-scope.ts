/**
 * Verification steps of a protected resource request (§3): the scope the resource requires,
 * and who is calling.
 */
import { OAuthError } from '../../protocol/index.ts';
import type { Client, Store, TokenCredential } from '../../store/types.ts';
import { describeCaller } from '../caller.ts';
import type { VerifiedCaller } from '../caller.ts';
import { scopeIncludes } from '../scope.ts';

/** §3.2 leaves what a token grants to the server: the scope the resource requires. */
export function checkScope(token: TokenCredential | undefined, required: string | undefined): void {
  if (required === undefined || required === '') return;
  if (token !== undefined && scopeIncludes(token.scope, required)) return;
  throw new OAuthError('permission_denied', `This resource requires the scope: ${required}.`);
}

/**
 * §3: who is calling. The owner comes through the store's cache (SQLite's read cache, the
 * per-instance cache on PostgreSQL + Redis).
 */
export async function identifyCaller(
  store: Store,
  client: Client,
  token: TokenCredential | undefined,
): Promise<VerifiedCaller> {
  if (token === undefined) return describeCaller(client, undefined, undefined);
  const owner = await store.owners.findById(token.ownerId);
  // Removing an owner removes its tokens: only a race with that removal gets here.
  if (owner === undefined)
    throw new OAuthError('token_revoked', 'The owner of this token was removed.');
  return describeCaller(client, token, owner);
}
