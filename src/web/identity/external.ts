/**
 * Handing a signed-out owner to the identity source (docs/identity.md): a login challenge is
 * stored through the provider, bound to this browser by a cookie only it holds (HttpOnly,
 * SameSite=Lax so that it comes back on the top-level redirect from the provider or the login
 * app), and the browser is sent to the OpenID Connect provider or to the login app.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ResolvedWebOptions } from '../options.ts';
import { cookieValue } from '../sessions.ts';
import { cookieName } from '../../http/cookie-names.ts';
import type { OidcSignIn, SignInHint } from './oidc.ts';
import type { SignInStep } from '../sign-in-limit.ts';

export const OIDC_CALLBACK_PATH = '/signin/oidc/callback';
export const DELEGATED_CALLBACK_PATH = '/signin/delegated/callback';
export const SIGN_IN_REFUSED_PATH = '/signin/refused';

export function browserCookieName(options: ResolvedWebOptions): string {
  return cookieName('login', options.secureCookies);
}

/** This browser's binding value, or '' when it has none (which matches no challenge). */
export function browserBinding(request: FastifyRequest, options: ResolvedWebOptions): string {
  return cookieValue(request, browserCookieName(options)) ?? '';
}

export function createExternalSignIn(
  options: ResolvedWebOptions,
  oidc: OidcSignIn | undefined,
  signInStep: SignInStep,
) {
  const { provider, identity } = options;
  const name = browserCookieName(options);

  /** The browser's binding value, set now when it has none (one per browser, reused). */
  function bind(request: FastifyRequest, reply: FastifyReply): string {
    const existing = cookieValue(request, name);
    if (existing !== undefined) return existing;
    const value = randomBytes(32).toString('base64url');
    reply.setCookie(name, value, {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: options.secureCookies,
      signed: true,
    });
    return value;
  }

  return {
    /** Sends the browser to sign in at the identity source, to come back to `next`. */
    async start(
      request: FastifyRequest,
      reply: FastifyReply,
      target: {
        readonly next: string;
        readonly oauthToken?: string | undefined;
        readonly hint?: SignInHint | undefined;
      },
    ): Promise<FastifyReply> {
      // Each start stores a login challenge: a step under the per-address cap, wherever it
      // begins (the sign-in page, or the authorization page of a signed-out owner).
      await signInStep(request, reply);
      const origin = options.baseUrlOf(request);
      if (identity.source === 'oidc' && oidc !== undefined) {
        // Discovery first: with the provider down, nothing is stored and the page says so.
        const checks = await oidc.prepare();
        const state = await provider.logins.begin({
          kind: 'oidc',
          browser: bind(request, reply),
          origin,
          next: target.next,
          oauthToken: target.oauthToken,
          data: JSON.stringify(checks),
        });
        const url = await oidc.authorizationUrl(
          `${origin}${OIDC_CALLBACK_PATH}`,
          state,
          checks,
          target.hint,
        );
        return reply.redirect(url.href, 303);
      }
      if (identity.source === 'delegated') {
        const challenge = await provider.logins.begin({
          kind: 'delegated',
          browser: bind(request, reply),
          origin,
          next: target.next,
          oauthToken: target.oauthToken,
        });
        const url = new URL(identity.loginUrl);
        url.searchParams.set('login_challenge', challenge);
        // The login app signs the person in again, and may pre-fill its form (docs/identity.md).
        if (target.hint?.forceLogin === true) url.searchParams.set('force_login', 'true');
        if (target.hint?.loginHint !== undefined) {
          url.searchParams.set('login_hint', target.hint.loginHint);
        }
        return reply.redirect(url.href, 303);
      }
      throw new Error('Local accounts sign in on the sign-in form.');
    },
  };
}

export type ExternalSignIn = ReturnType<typeof createExternalSignIn>;
