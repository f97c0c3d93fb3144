/**
 * Verification steps of a protected resource request (§3): the scope the resource requires,
 * and who is calling.
 */
import { OAuthError } from '../../protocol/index.ts';
import { describeCaller } from '../caller.ts';
import type { Client, TokenCredential } from '../../store/types.ts';
import { effectiveScope, scopeIncludes } from '../scope.ts';
import type { Verification } from './verification.ts';

/**
 * §3.2 leaves what a token grants to the server: the scope the resource requires, within what
 * the token was granted AND its client's current ceiling (read from the client row already
 * loaded: a lowered ceiling reaches tokens already issued, at no extra read).
 */
export function checkScope(
  client: Client,
  token: TokenCredential | undefined,
  required: string | undefined,
): void {
  if (required === undefined || required === '') return;
  if (token !== undefined && scopeIncludes(effectiveScope(token.scope, client.scopes), required))
    return;
  throw new OAuthError('permission_denied', `This resource requires the scope: ${required}.`);
}

/**
 * §3: who is calling. The owner comes through the store's cache (SQLite's read cache, the
 * per-instance cache on PostgreSQL + Redis). Sets `verification.caller`.
 */
export async function identifyCaller(verification: Verification): Promise<void> {
  const { client, tokenCredential: token } = verification.loaded!;
  if (token === undefined) {
    verification.caller = describeCaller(client, undefined, undefined);
    return;
  }
  const owner = await verification.deps.store.owners.findById(token.ownerId);
  // Removing an owner removes its tokens: only a race with that removal gets here.
  if (owner === undefined)
    throw new OAuthError('token_revoked', 'The owner of this token was removed.');
  verification.caller = describeCaller(client, token, owner);
}
