/**
 * The operator console's sign-ins (docs/admin.md "Console"): an operator pastes an admin token
 * once; the browser then holds a random session value, never the token. The store keeps only
 * the SHA-256 of that value and the token's public id, so every instance behind a load
 * balancer resumes the session, and every request checks the token again (a revoked or expired
 * token ends its sessions at once, and the role is the token's current one). Wrong tokens
 * count towards the same per-address limit as the admin API's (admin-tokens.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { ConsoleSessionStore } from '../../store/types.ts';
import { adminTokenIdOf, type AdminIdentity, type AdminTokens } from './admin-tokens.ts';
import type { ProviderEvents } from '../events.ts';

/** How long a console sign-in lasts, in seconds: half an hour, then the token is asked again. */
export const CONSOLE_SESSION_LIFETIME_SECONDS = 30 * 60;

export interface ConsoleSession {
  /** The digest naming the session: what the console's CSRF tokens are bound to. */
  readonly id: string;
  readonly admin: AdminIdentity;
  readonly expiresAt: number;
}

const digestOf = (value: string) => createHash('sha256').update(value).digest('base64url');

/** The header the admin tokens read: a pasted value with spaces or nothing still counts as wrong. */
const pasted = (token: string) => token.replace(/\s+/g, '') || '-';

export function createConsoleSessions(
  tokens: AdminTokens,
  store: ConsoleSessionStore,
  events: ProviderEvents,
  now: () => number,
  lifetimeSeconds = CONSOLE_SESSION_LIFETIME_SECONDS,
) {
  return {
    lifetimeSeconds,

    /** Signs in with a pasted admin token; AdminRefusal 401 or 429 as on the admin API. */
    async start(
      token: string,
      address: string,
    ): Promise<{ readonly cookie: string; readonly session: ConsoleSession }> {
      const value = pasted(token);
      const admin = await tokens.authenticate(`Bearer ${value}`, address);
      // A token that authenticated has the well-formed shape, hence its id.
      const tokenId = adminTokenIdOf(value)!;
      const cookie = randomBytes(32).toString('base64url');
      const id = digestOf(cookie);
      const expiresAt = now() + lifetimeSeconds * 1000;
      await store.create({ id, tokenId, expiresAt });
      events.emit('admin.console-signed-in', { name: admin.name });
      return { cookie, session: { id, admin, expiresAt } };
    },

    /** The session behind a cookie value, or undefined (unknown, expired, token no longer valid). */
    async resume(cookie: string): Promise<ConsoleSession | undefined> {
      const id = digestOf(cookie);
      const found = await store.find(id, now());
      if (found === undefined) return undefined;
      const admin = await tokens.identityOf(found.tokenId);
      if (admin === undefined) {
        await store.remove(id);
        return undefined;
      }
      return { id, admin, expiresAt: found.expiresAt };
    },

    /** Signs out: the session is forgotten on every instance, whatever the browser keeps. */
    async end(cookie: string): Promise<void> {
      const id = digestOf(cookie);
      const found = await store.find(id, now());
      if (!(await store.remove(id)) || found === undefined) return;
      const admin = await tokens.identityOf(found.tokenId);
      if (admin !== undefined) events.emit('admin.console-signed-out', { name: admin.name });
    },
  };
}

export type ConsoleSessions = ReturnType<typeof createConsoleSessions>;
