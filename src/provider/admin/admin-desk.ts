/**
 * The admin API's door to the rules (docs/admin.md): who may do what (roles.ts), the listings
 * with their filters and pages, grants seen as (owner, client) pairs, revoking every token of
 * a client or an owner, and the sealing keys. Changes go through the same rooms the CLI and
 * the pages use (clients, owners, tokens), so every one of them is announced on `events` and
 * lands in the audit trail.
 */
import type { EventEmitter } from 'node:events';
import type { Client, Owner, Store, TokenCredential } from '../../store/types.ts';
import { InputError, NotFoundError } from '../input-error.ts';
import type { TokenLedger } from '../flow/tokens.ts';
import { AdminRefusal } from './admin-errors.ts';
import type { AdminIdentity, AdminTokens } from './admin-tokens.ts';
import { pageOf, type Page, type PageRequest } from './paging.ts';
import { roleMay, type AdminAction } from './roles.ts';
import { createKeyDesk, NO_KEYS, type SealingKeySource } from './sealing-keys.ts';

export interface ClientFilter extends PageRequest {
  /** Only disabled (true) or enabled (false) clients. */
  readonly disabled?: boolean | undefined;
  /** Only clients the developer portal's owner `developerId` registered. */
  readonly developerId?: string | undefined;
  /** Only clients whose name or key holds this text (any case). */
  readonly search?: string | undefined;
}

export interface OwnerFilter extends PageRequest {
  readonly source?: Owner['source'] | undefined;
  /** Only owners whose name, username or subject holds this text (any case). */
  readonly search?: string | undefined;
}

export type TokenStatus = 'active' | 'expired' | 'revoked';

export interface TokenFilter extends PageRequest {
  readonly clientKey?: string | undefined;
  readonly ownerId?: string | undefined;
  readonly status?: TokenStatus | undefined;
}

/** What an owner allowed a client: the pair, and its tokens still usable. */
export interface Grant {
  readonly ownerId: string;
  readonly clientKey: string;
  readonly activeTokens: number;
  readonly lastUsedAt: number | null;
}

const holds = (text: string | null, search: string) =>
  text !== null && text.toLowerCase().includes(search.toLowerCase());

export function tokenStatus(token: TokenCredential, at: number): TokenStatus {
  if (token.revokedAt !== null) return 'revoked';
  if (token.expiresAt !== null && token.expiresAt <= at) return 'expired';
  return 'active';
}

/** The listings with their filters and pages, and single rows by id. */
function adminListings(store: Store, now: () => number) {
  return {
    async clients(filter: ClientFilter = {}): Promise<Page<Client>> {
      const all = await store.clients.list(
        filter.developerId === undefined ? {} : { developerId: filter.developerId },
      );
      const search = filter.search;
      const chosen = all.filter(
        (client) =>
          (filter.disabled === undefined || client.disabled === filter.disabled) &&
          (search === undefined || holds(client.name, search) || holds(client.key, search)),
      );
      return pageOf(chosen, (client) => client.key, filter);
    },

    async owners(filter: OwnerFilter = {}): Promise<Page<Owner>> {
      const search = filter.search;
      const chosen = (await store.owners.list()).filter(
        (owner) =>
          (filter.source === undefined || owner.source === filter.source) &&
          (search === undefined ||
            holds(owner.name, search) ||
            holds(owner.username, search) ||
            holds(owner.subject, search)),
      );
      return pageOf(chosen, (owner) => owner.id, filter);
    },

    async owner(id: string): Promise<Owner> {
      const owner = await store.owners.findById(id);
      if (owner === undefined) throw new NotFoundError(`No owner with id ${id}.`);
      return owner;
    },

    async tokenCredentials(filter: TokenFilter = {}): Promise<Page<TokenCredential>> {
      const at = now();
      const found = await store.tokenCredentials.list({
        ...(filter.clientKey === undefined ? {} : { clientKey: filter.clientKey }),
        ...(filter.ownerId === undefined ? {} : { ownerId: filter.ownerId }),
      });
      const chosen =
        filter.status === undefined
          ? found
          : found.filter((token) => tokenStatus(token, at) === filter.status);
      return pageOf(chosen, (token) => token.token, filter);
    },

    async tokenCredential(token: string): Promise<TokenCredential> {
      const found = await store.tokenCredentials.find(token);
      if (found === undefined) throw new NotFoundError('No such token.');
      return found;
    },
  };
}

export function createAdminDesk(deps: {
  readonly store: Store;
  readonly now: () => number;
  readonly events: EventEmitter;
  readonly tokens: TokenLedger;
  readonly adminTokens: AdminTokens;
  /** The server's sealing keys; none given: secrets in clear as far as it knows. */
  readonly sealingKeys?: SealingKeySource | undefined;
}) {
  const { store, now, events, tokens } = deps;

  async function liveTokens(filter: {
    readonly clientKey?: string | undefined;
    readonly ownerId?: string | undefined;
  }) {
    const at = now();
    const found = await store.tokenCredentials.list({
      ...(filter.clientKey === undefined ? {} : { clientKey: filter.clientKey }),
      ...(filter.ownerId === undefined ? {} : { ownerId: filter.ownerId }),
    });
    return found.filter((token) => tokenStatus(token, at) === 'active');
  }

  return {
    /** Admin tokens: made and revoked with the CLI, checked on every admin API request. */
    tokens: deps.adminTokens,

    /** Whether `admin`'s role allows `action`. */
    may: (admin: AdminIdentity, action: AdminAction) => roleMay(admin.role, action),

    /** Throws AdminRefusal 403 unless `admin`'s role allows `action`. */
    authorize(admin: AdminIdentity, action: AdminAction): void {
      if (!roleMay(admin.role, action)) {
        throw new AdminRefusal(403, `The ${admin.role} role may not do this (${action}).`);
      }
    },

    ...adminListings(store, now),

    /** Grants with a usable token, one per (owner, client), for a client or an owner. */
    async grants(
      filter: { readonly clientKey?: string; readonly ownerId?: string } & PageRequest,
    ): Promise<Page<Grant>> {
      const byPair = new Map<string, Grant>();
      for (const token of await liveTokens(filter)) {
        const key = JSON.stringify([token.ownerId, token.clientKey]);
        const seen = byPair.get(key);
        const used = Math.max(seen?.lastUsedAt ?? -1, token.lastUsedAt ?? -1);
        byPair.set(key, {
          ownerId: token.ownerId,
          clientKey: token.clientKey,
          activeTokens: (seen?.activeTokens ?? 0) + 1,
          lastUsedAt: used < 0 ? null : used,
        });
      }
      return pageOf([...byPair.values()], (g) => JSON.stringify([g.ownerId, g.clientKey]), filter);
    },

    /**
     * Revokes every usable token of a client, of an owner, or of one owner for one client;
     * returns how many. Each is announced as `token.revoked` (the audit trail).
     */
    async revokeTokens(filter: {
      readonly clientKey?: string | undefined;
      readonly ownerId?: string | undefined;
    }) {
      if (filter.clientKey === undefined && filter.ownerId === undefined) {
        throw new InputError('client', 'Name a client, an owner, or both.');
      }
      let revoked = 0;
      for (const token of await liveTokens(filter)) {
        if (await tokens.revoke(token.token)) revoked += 1;
      }
      return revoked;
    },

    /** The sealing keys (docs/security.md "Secrets at rest"). */
    keys: createKeyDesk(store, events, deps.sealingKeys ?? NO_KEYS),
  };
}

export type AdminDesk = ReturnType<typeof createAdminDesk>;
