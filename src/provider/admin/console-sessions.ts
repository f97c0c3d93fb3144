/**
 * The operator console's sign-ins (docs/admin.md "Console"): an operator pastes an admin token
 * once; the browser then holds a random session value, never the token. Only the SHA-256 of
 * that value names the session, kept in this instance's memory with the token it stands for,
 * so every request is checked again by the admin tokens (a revoked or expired token ends its
 * sessions at once, and the role is the token's current one). Wrong tokens count towards the
 * same per-address limit as the admin API's (admin-tokens.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { AdminIdentity, AdminTokens } from './admin-tokens.ts';
import { AdminRefusal } from './admin-errors.ts';
import type { ProviderEvents } from '../events.ts';

/** How long a console sign-in lasts, in seconds: half an hour, then the token is asked again. */
export const CONSOLE_SESSION_LIFETIME_SECONDS = 30 * 60;
/** Sessions one instance keeps at most; past it the oldest are forgotten (signed out). */
const MAX_SESSIONS = 10_000;

export interface ConsoleSession {
  /** The digest naming the session: what the console's CSRF tokens are bound to. */
  readonly id: string;
  readonly admin: AdminIdentity;
  readonly expiresAt: number;
}

const digestOf = (value: string) => createHash('sha256').update(value).digest('base64url');

/** The header the admin tokens read: a pasted value with spaces or nothing still counts as wrong. */
const bearerOf = (token: string) => `Bearer ${token.replace(/\s+/g, '') || '-'}`;

export function createConsoleSessions(
  tokens: AdminTokens,
  events: ProviderEvents,
  now: () => number,
  lifetimeSeconds = CONSOLE_SESSION_LIFETIME_SECONDS,
) {
  const live = new Map<
    string,
    { readonly bearer: string; readonly name: string; readonly expiresAt: number }
  >();

  function prune(at: number): void {
    for (const [id, session] of live) if (session.expiresAt <= at) live.delete(id);
    while (live.size >= MAX_SESSIONS) {
      const oldest = live.keys().next().value;
      if (oldest === undefined) break;
      live.delete(oldest);
    }
  }

  return {
    lifetimeSeconds,

    /** Signs in with a pasted admin token; AdminRefusal 401 or 429 as on the admin API. */
    async start(
      token: string,
      address: string,
    ): Promise<{ readonly cookie: string; readonly session: ConsoleSession }> {
      const bearer = bearerOf(token);
      const admin = await tokens.authenticate(bearer, address);
      const at = now();
      prune(at);
      const cookie = randomBytes(32).toString('base64url');
      const id = digestOf(cookie);
      const expiresAt = at + lifetimeSeconds * 1000;
      live.set(id, { bearer, name: admin.name, expiresAt });
      events.emit('admin.console-signed-in', { name: admin.name });
      return { cookie, session: { id, admin, expiresAt } };
    },

    /** The session behind a cookie value, or undefined (unknown, expired, token no longer valid). */
    async resume(cookie: string, address: string): Promise<ConsoleSession | undefined> {
      const id = digestOf(cookie);
      const found = live.get(id);
      if (found === undefined) return undefined;
      if (found.expiresAt <= now()) {
        live.delete(id);
        return undefined;
      }
      try {
        const admin = await tokens.authenticate(found.bearer, address);
        return { id, admin, expiresAt: found.expiresAt };
      } catch (error) {
        if (error instanceof AdminRefusal && error.status === 401) {
          live.delete(id);
          return undefined;
        }
        throw error;
      }
    },

    /** Signs out: the session is forgotten here, whatever the browser keeps. */
    end(cookie: string): void {
      const id = digestOf(cookie);
      const found = live.get(id);
      if (found === undefined) return;
      live.delete(id);
      events.emit('admin.console-signed-out', { name: found.name });
    },
  };
}

export type ConsoleSessions = ReturnType<typeof createConsoleSessions>;
