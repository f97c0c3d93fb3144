/**
 * An owner's connections: every client holding a live token of the owner, one row per client
 * however many tokens it holds, with the union of their scopes, when first granted, when last
 * used and until when (§2.3 "the owner should be able to revoke"). Revoking a connection
 * revokes every token of that client for that owner; the next signed request is refused.
 */
import type { Client, Store, TokenCredential } from '../../store/types.ts';
import { parseScope } from '../scope.ts';
import { usableUntil } from './session-extension.ts';

export interface Connection {
  readonly client: Client;
  readonly scope: readonly string[];
  readonly grantedAt: number;
  readonly lastUsedAt: number | null;
  /** When the longest-lived token ends; null: until revoked. */
  readonly expiresAt: number | null;
}

type Summary = Omit<Connection, 'client'>;

function latest(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.max(a, b);
}

/** One summary per client: several live tokens of one client are one connection. */
function summarise(tokens: readonly TokenCredential[], now: number): Map<string, Summary> {
  const byClient = new Map<string, Summary>();
  for (const token of tokens) {
    // A token with a session (session extension) lasts, renewed, until the session ends.
    const until = usableUntil(token);
    if (token.revokedAt !== null || (until !== null && until <= now)) continue;
    const seen = byClient.get(token.clientKey);
    byClient.set(token.clientKey, {
      scope: [...new Set([...(seen?.scope ?? []), ...parseScope(token.scope)])],
      grantedAt: Math.min(seen?.grantedAt ?? token.issuedAt, token.issuedAt),
      lastUsedAt: latest(seen?.lastUsedAt ?? null, token.lastUsedAt),
      // A connection lasts as long as its longest-lived token; null means until revoked.
      expiresAt:
        seen !== undefined && (seen.expiresAt === null || until === null)
          ? null
          : latest(seen?.expiresAt ?? null, until),
    });
  }
  return byClient;
}

export function createConnectionBook(
  store: Store,
  now: () => number,
  flushLastUse: () => Promise<void>,
  revokeGrant: (ownerId: string, clientKey: string) => Promise<number>,
) {
  return {
    /** The owner's connections, the most recently granted first, last-use times current. */
    async list(ownerId: string): Promise<Connection[]> {
      await flushLastUse(); // last-use times are batched; show the latest
      const rows: Connection[] = [];
      for (const [key, summary] of summarise(
        await store.tokenCredentials.list({ ownerId }),
        now(),
      )) {
        const client = await store.clients.find(key);
        if (client !== undefined) rows.push({ client, ...summary });
      }
      return rows.sort((a, b) => b.grantedAt - a.grantedAt);
    },

    /** Ends the connection: every token of `clientKey` for `ownerId`; returns how many. */
    revoke: revokeGrant,
  };
}

export type ConnectionBook = ReturnType<typeof createConnectionBook>;
