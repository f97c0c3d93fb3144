/**
 * Browser sessions of signed-in owners. The cookie holds 256 random bits; the store keeps
 * only their SHA-256, so a leaked database row cannot be replayed as a cookie. Starting a
 * session always makes a new one (fixation: an id planted before sign-in never gains rights).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Owner, Store } from '../../store/types.ts';
import type { ProviderEvents } from '../events.ts';

/** The stored form of a cookie value (sessions, login browser bindings, challenges). */
export function digest(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

export interface ActiveSession {
  /** The stored id (a digest of the cookie value), also what CSRF tokens are bound to. */
  readonly id: string;
  readonly owner: Owner;
  /** When the owner signed in (`force_login` asks for a sign-in after the request began). */
  readonly since: number;
}

export function createSessionBook(store: Store, now: () => number, events: ProviderEvents) {
  return {
    /** A sign-in: a new session for `owner`; returns the cookie value to set and the session. */
    async start(
      owner: Owner,
      lifetimeSeconds: number,
    ): Promise<{ readonly cookie: string; readonly session: ActiveSession }> {
      const cookie = randomBytes(32).toString('base64url');
      const createdAt = now();
      const id = digest(cookie);
      await store.sessions.create({
        id,
        ownerId: owner.id,
        createdAt,
        expiresAt: createdAt + lifetimeSeconds * 1000,
      });
      events.emit('owner.signed-in', { ownerId: owner.id, source: owner.source });
      return { cookie, session: { id, owner, since: createdAt } };
    },

    /** The session a cookie value stands for, with its owner; undefined when expired or unknown. */
    async resume(cookie: string): Promise<ActiveSession | undefined> {
      const session = await store.sessions.find(digest(cookie), now());
      if (session === undefined) return undefined;
      const owner = await store.owners.findById(session.ownerId);
      return owner === undefined ? undefined : { id: session.id, owner, since: session.createdAt };
    },

    async end(cookie: string): Promise<void> {
      await store.sessions.remove(digest(cookie));
    },
  };
}

export type SessionBook = ReturnType<typeof createSessionBook>;
