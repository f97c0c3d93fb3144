/**
 * Sign-ins handed elsewhere (docs/identity.md): to the team's OpenID Connect provider, or to
 * its own login app, which vouches for the person through the admin API (as ORY Hydra's login
 * challenge does). A challenge is 256 random bits, lives a few minutes, is bound to the
 * authorization request and to the browser that started it (a cookie only that browser
 * holds), and is answered once: every transition is one conditional write in the store, so
 * several instances share it and a replay finds it used. Only digests are stored.
 */
import { randomBytes } from 'node:crypto';
import { isOAuthError } from '../../protocol/index.ts';
import type { LoginChallenge, Owner, Store } from '../../store/types.ts';
import { checkSubject, cleanName } from './owners.ts';
import type { OwnerDirectory } from './owners.ts';
import { digest } from './sessions.ts';
import type { ProviderEvents } from '../events.ts';

/** How long a person has to sign in at the identity provider or the login app. */
export const LOGIN_CHALLENGE_LIFETIME_SECONDS = 600;

/** Why a challenge or a login verifier was refused. */
export type LoginRefusal =
  /** Never issued, or not of this kind. */
  | 'unknown'
  | 'expired'
  /** Already accepted, rejected or used. */
  | 'answered'
  /** Brought back by another browser than the one that started the sign-in. */
  | 'other-browser';

export class LoginRefusedError extends Error {
  override readonly name = 'LoginRefusedError';
  readonly reason: LoginRefusal;

  constructor(reason: LoginRefusal, message: string) {
    super(message);
    this.reason = reason;
  }
}

export interface LoginStart {
  readonly kind: LoginChallenge['kind'];
  /** The browser-binding cookie value of the browser signing in. */
  readonly browser: string;
  /** The base URL that browser uses, to send it back to. */
  readonly origin: string;
  /** The local path to return to once signed in. */
  readonly next: string;
  /** The authorization request being answered, if any. */
  readonly oauthToken?: string | null | undefined;
  /** What the callback needs (OpenID Connect: nonce and PKCE verifier), JSON text. */
  readonly data?: string | undefined;
}

export interface LoginDeskDependencies {
  readonly store: Store;
  readonly now: () => number;
  readonly owners: OwnerDirectory;
  readonly events: ProviderEvents;
  /** Denies the authorization request a rejected sign-in was for. */
  readonly deny: (token: string) => Promise<{ readonly redirect: string | undefined }>;
}

/** The refusals shared by every step of a sign-in. */
function loginRefusals(deps: LoginDeskDependencies) {
  const { store, now, events } = deps;

  function refuse(reason: LoginRefusal, kind: string): LoginRefusedError {
    events.emit('owner.sign-in-refused', { kind, reason });
    const messages: Record<LoginRefusal, string> = {
      unknown: 'This sign-in is unknown: it was never started here.',
      expired: 'This sign-in took too long and expired.',
      answered: 'This sign-in was already completed or refused, and each can be used once.',
      'other-browser': 'This sign-in was started in another browser.',
    };
    return new LoginRefusedError(reason, messages[reason]);
  }

  /** A challenge or verifier as given; one that cannot be one of ours is simply unknown. */
  function challengeText(value: unknown, kind: LoginChallenge['kind']): string {
    if (typeof value !== 'string' || value === '' || value.length > 512) {
      throw refuse('unknown', kind);
    }
    return value;
  }

  /** Why a transition did not happen, from what the store holds now. */
  function explain(
    found: LoginChallenge | undefined,
    kind: LoginChallenge['kind'],
    expected: LoginChallenge['state'],
    browser?: string,
  ): LoginRefusedError {
    if (found === undefined || found.kind !== kind) return refuse('unknown', kind);
    if (found.state !== expected) return refuse('answered', kind);
    if (found.expiresAt <= now()) return refuse('expired', kind);
    if (browser !== undefined && found.browser !== browser) return refuse('other-browser', kind);
    return refuse('answered', kind);
  }

  async function pendingDelegated(challenge: unknown): Promise<string> {
    const id = digest(challengeText(challenge, 'delegated'));
    const found = await store.loginChallenges.find(id);
    if (found === undefined || found.kind !== 'delegated' || found.state !== 'pending') {
      throw explain(found, 'delegated', 'pending');
    }
    return id;
  }

  return { challengeText, explain, pendingDelegated };
}

type LoginRefusals = ReturnType<typeof loginRefusals>;

/** The login app's answers to a delegated challenge: accepted or rejected. */
function delegatedVerdicts(deps: LoginDeskDependencies, refusals: LoginRefusals) {
  const { store, now, events } = deps;
  const { explain, pendingDelegated } = refusals;

  return {
    /**
     * The login app vouches for a person: the pending challenge is accepted, once. Returns the
     * login verifier the browser brings back (a new value: the challenge itself went through
     * the login app's URLs and logs) and the challenge.
     */
    async accept(
      challenge: unknown,
      person: { readonly subject: unknown; readonly name: unknown },
    ): Promise<{ readonly verifier: string; readonly challenge: LoginChallenge }> {
      const id = await pendingDelegated(challenge);
      const subject = checkSubject(person.subject);
      const name = cleanName(person.name ?? undefined, subject);
      const verifier = randomBytes(32).toString('base64url');
      const accepted = await store.loginChallenges.accept(
        id,
        { verifier: digest(verifier), subject, name },
        now(),
      );
      if (accepted === undefined) {
        throw explain(await store.loginChallenges.find(id), 'delegated', 'pending');
      }
      events.emit('admin.login-accepted', { subject });
      return { verifier, challenge: accepted };
    },

    /**
     * The login app refuses: the challenge ends, and the authorization request it was for is
     * denied (the client learns `user_refused`). Returns where the client wants the browser
     * sent for a denial, when it said so.
     */
    async reject(
      challenge: unknown,
    ): Promise<{ readonly redirect: string | undefined; readonly challenge: LoginChallenge }> {
      const id = await pendingDelegated(challenge);
      const rejected = await store.loginChallenges.reject(id, now());
      if (rejected === undefined) {
        throw explain(await store.loginChallenges.find(id), 'delegated', 'pending');
      }
      events.emit('admin.login-rejected', {});
      events.emit('owner.sign-in-refused', { kind: 'delegated', reason: 'rejected' });
      if (rejected.oauthToken === null) return { redirect: undefined, challenge: rejected };
      try {
        return { redirect: (await deps.deny(rejected.oauthToken)).redirect, challenge: rejected };
      } catch (error) {
        // Already answered or expired: nothing left to deny.
        if (isOAuthError(error)) return { redirect: undefined, challenge: rejected };
        throw error;
      }
    },
  };
}

export function createLoginDesk(deps: LoginDeskDependencies) {
  const { store, now } = deps;
  const refusals = loginRefusals(deps);
  const { challengeText, explain } = refusals;

  return {
    /** Starts a sign-in; returns the challenge to hand over (the `state`, the `login_challenge`). */
    async begin(start: LoginStart): Promise<string> {
      const challenge = randomBytes(32).toString('base64url');
      const createdAt = now();
      await store.loginChallenges.create({
        id: digest(challenge),
        kind: start.kind,
        browser: digest(start.browser),
        origin: start.origin,
        next: start.next,
        oauthToken: start.oauthToken ?? null,
        data: start.data ?? '',
        createdAt,
        expiresAt: createdAt + LOGIN_CHALLENGE_LIFETIME_SECONDS * 1000,
      });
      return challenge;
    },

    ...delegatedVerdicts(deps, refusals),

    /** The browser returns from the login app with the login verifier: signs the owner in. */
    async complete(
      verifier: unknown,
      browser: string,
    ): Promise<{ readonly owner: Owner; readonly challenge: LoginChallenge }> {
      const key = digest(challengeText(verifier, 'delegated'));
      const used = await store.loginChallenges.consume(
        { state: 'accepted', verifier: key },
        digest(browser),
        now(),
      );
      if (used === undefined || used.subject === null) {
        const found = await store.loginChallenges.findByVerifier(key);
        throw explain(found, 'delegated', 'accepted', digest(browser));
      }
      const owner = await deps.owners.signInExternal({
        source: 'delegated',
        subject: used.subject,
        name: used.name ?? undefined,
      });
      return { owner, challenge: used };
    },

    /**
     * The browser returns from the OpenID Connect provider with `state`: the pending challenge
     * of this browser is used up and returned (its data holds the nonce and PKCE verifier).
     */
    async resume(state: unknown, browser: string): Promise<LoginChallenge> {
      const id = digest(challengeText(state, 'oidc'));
      const used = await store.loginChallenges.consume(
        { state: 'pending', id },
        digest(browser),
        now(),
      );
      if (used === undefined || used.kind !== 'oidc') {
        throw explain(await store.loginChallenges.find(id), 'oidc', 'pending', digest(browser));
      }
      return used;
    },
  };
}

export type LoginDesk = ReturnType<typeof createLoginDesk>;
