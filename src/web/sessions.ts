/**
 * The session cookie of signed-in owners. The provider keeps the sessions (only a digest of
 * the cookie value is stored); a sign-in always starts a new session (fixation: an id planted
 * before sign-in never gains rights).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Owner } from '../provider/index.ts';
import { cookieName } from '../http/cookie-names.ts';
import type { ResolvedWebOptions } from './options.ts';

/**
 * How long a browser sign-in lasts, in seconds: 12 hours, a working day, after which the owner
 * signs in again (docs/pages.md). Not the session extension's sessions of renewals (the
 * provider's `policy.sessionExtensionLifetimeSeconds`).
 */
export const DEFAULT_BROWSER_SESSION_LIFETIME_SECONDS = 12 * 3600;

export interface SignedIn {
  /** The stored id (a hash of the cookie value), also what CSRF tokens are bound to. */
  readonly sessionId: string;
  readonly owner: Owner;
  /** When this session's sign-in happened. */
  readonly since: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in owner on web pages, or null. */
    signedIn: SignedIn | null;
  }
}

/**
 * What CSRF tokens are bound to: the session, or one shared value before sign-in (the
 * library refuses an empty one). A token from before sign-in is refused after it.
 */
export function csrfUserInfo(request: FastifyRequest): string {
  return request.signedIn?.sessionId ?? 'signed-out';
}

export function sessionCookieName(options: ResolvedWebOptions): string {
  // __Host- makes the browser refuse the cookie unless Secure, Path=/ and no Domain.
  return cookieName('session', options.secureCookies);
}

/** A signed cookie's value, or undefined when absent or its signature is wrong. */
export function cookieValue(request: FastifyRequest, name: string): string | undefined {
  const raw = request.cookies[name];
  if (raw === undefined) return undefined;
  const unsigned = request.unsignCookie(raw);
  return unsigned.valid && unsigned.value !== null ? unsigned.value : undefined;
}

export function createSessions(options: ResolvedWebOptions) {
  const { provider } = options;
  const name = sessionCookieName(options);

  return {
    /** onRequest: who is signed in (an expired or unknown session counts as nobody). */
    async load(request: FastifyRequest): Promise<void> {
      request.signedIn = null;
      const value = cookieValue(request, name);
      if (value === undefined) return;
      const session = await provider.sessions.resume(value);
      if (session !== undefined)
        request.signedIn = { sessionId: session.id, owner: session.owner, since: session.since };
    },

    /** Ends any session the browser had, then starts a new one for `owner`. */
    async start(request: FastifyRequest, reply: FastifyReply, owner: Owner): Promise<void> {
      await this.end(request, reply);
      const { cookie, session } = await provider.sessions.start(
        owner,
        options.browserSessionLifetimeSeconds,
      );
      reply.setCookie(name, cookie, {
        path: '/',
        httpOnly: true,
        sameSite: 'lax',
        secure: options.secureCookies,
        signed: true,
        maxAge: options.browserSessionLifetimeSeconds,
      });
      request.signedIn = { sessionId: session.id, owner, since: session.since };
    },

    async end(request: FastifyRequest, reply: FastifyReply): Promise<void> {
      const value = cookieValue(request, name);
      if (value !== undefined) await provider.sessions.end(value);
      if (request.cookies[name] !== undefined) {
        reply.clearCookie(name, {
          path: '/',
          httpOnly: true,
          sameSite: 'lax',
          secure: options.secureCookies,
        });
      }
      request.signedIn = null;
    },
  };
}

export type Sessions = ReturnType<typeof createSessions>;
