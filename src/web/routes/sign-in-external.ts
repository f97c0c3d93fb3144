/**
 * Sign-in through the configured identity source (docs/identity.md): `GET /signin` hands the
 * browser to the OpenID Connect provider or the login app, and the callbacks bring it back.
 * Each callback finds its login challenge through the provider, which checks that it is
 * pending (or accepted), unexpired, and of this browser, and uses it up; only then does the
 * owner get a session. A failure shows a clear page and signs nobody in.
 */
import type { FastifyInstance } from 'fastify';
import type { WebContext } from '../context.ts';
import { field, safeNext } from '../form.ts';
import {
  DELEGATED_CALLBACK_PATH,
  OIDC_CALLBACK_PATH,
  SIGN_IN_REFUSED_PATH,
  browserBinding,
} from '../identity/external.ts';
import type { ExternalSignIn } from '../identity/external.ts';
import { IdentityProviderError } from '../identity/oidc.ts';
import type { OidcChecks, OidcSignIn } from '../identity/oidc.ts';
import { csrfRefused, html, page, seeOther } from '../../http/route-schemas.ts';

const refusedProblem = {
  status: 403,
  title: 'Sign-in was refused',
  message: 'The sign-in service refused to sign you in, so nothing was shared with any app.',
  action: 'If you think this is a mistake, sign in again or ask the people who run the service.',
};

function checksOf(data: string): OidcChecks {
  const value = JSON.parse(data) as Partial<OidcChecks>;
  if (typeof value.nonce !== 'string' || typeof value.codeVerifier !== 'string') {
    throw new IdentityProviderError('invalid', 'The stored sign-in is damaged.');
  }
  return { nonce: value.nonce, codeVerifier: value.codeVerifier };
}

export async function externalSignInRoutes(
  fastify: FastifyInstance,
  web: WebContext,
  external: ExternalSignIn,
  oidc: OidcSignIn | undefined,
): Promise<void> {
  const { options, sessions, errors } = web;
  const authorizationPages = [options.paths.authorize, options.paths.authenticate];

  /** The authorization request a `next` path answers, if it is the authorization page. */
  function oauthTokenOf(next: string): string | undefined {
    const url = new URL(next, 'http://latchkey.invalid');
    if (!authorizationPages.includes(url.pathname)) return undefined;
    return url.searchParams.get('oauth_token') ?? undefined;
  }

  fastify.get(
    '/signin',
    {
      schema: page('Sign in through the identity source', {
        303: seeOther(
          'To the OpenID Connect provider or the login app (or to `next` when signed in).',
        ),
        429: html('Too many sign-ins from this address; try again later.'),
      }),
      // Each visit stores a login challenge: `external.start` counts it against the
      // per-address cap, as it does for the authorization page.
    },
    async (request, reply) => {
      const next = safeNext(field(request.query, 'next'));
      if (request.signedIn !== null) return reply.redirect(next, 303);
      return external.start(request, reply, { next, oauthToken: oauthTokenOf(next) });
    },
  );

  const signOut = page('Sign out', { 303: seeOther('To the landing page.'), 403: csrfRefused });
  fastify.post(
    '/signout',
    { preHandler: fastify.csrfProtection, schema: signOut },
    async (request, reply) => {
      // Ends Latchkey's session only: the identity source keeps its own.
      await sessions.end(request, reply);
      return reply.redirect('/', 303);
    },
  );

  const refused = page('Sign-in refused', { 403: html('The login app refused the sign-in.') });
  fastify.get(SIGN_IN_REFUSED_PATH, { schema: refused }, async (request, reply) =>
    errors.show(request, reply, refusedProblem),
  );

  if (oidc !== undefined) registerOidcCallback(fastify, web, oidc);
  if (options.identity.source === 'delegated') registerDelegatedReturn(fastify, web);
}

/** The OpenID Connect provider's return: the sign-in checked and finished, a session begun. */
function registerOidcCallback(fastify: FastifyInstance, web: WebContext, oidc: OidcSignIn): void {
  const { options, sessions } = web;
  const { provider } = options;
  const callback = page(
    'OpenID Connect callback',
    {
      303: seeOther('Signed in: to where the sign-in began.'),
      400: html('A callback this browser did not start, or an answer that does not verify.'),
      429: html('Too many sign-in steps from this address; try again later.'),
      502: html('The identity provider could not be reached or answered wrongly.'),
    },
    { description: 'The identity provider sends the browser back here with `code` and `state`.' },
  );
  // Each return is looked up, and audited when refused: a step under the per-address cap.
  fastify.get(
    OIDC_CALLBACK_PATH,
    { schema: callback, onRequest: web.signInStep },
    async (request, reply) => {
      const state = field(request.query, 'state');
      // State first: a callback this browser did not start is refused before the provider is asked.
      const challenge = await provider.logins.resume(state, browserBinding(request, options));
      const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
      const callbackUrl = new URL(`${challenge.origin}${OIDC_CALLBACK_PATH}${query}`);
      const person = await oidc.finish(callbackUrl, state, checksOf(challenge.data));
      let owner;
      try {
        owner = await provider.owners.signInExternal({ source: 'oidc', ...person });
      } catch (error) {
        throw new IdentityProviderError(
          'invalid',
          'The ID token named an unusable subject.',
          error,
        );
      }
      await sessions.start(request, reply, owner);
      return reply.redirect(challenge.next, 303);
    },
  );
}

/** The login app's return (a delegated sign-in): the login verifier redeemed, a session begun. */
function registerDelegatedReturn(fastify: FastifyInstance, web: WebContext): void {
  const { options, sessions } = web;
  const { provider } = options;
  const back = page(
    'Delegated sign-in return',
    {
      303: seeOther('Signed in: to where the sign-in began.'),
      400: html('An unknown, used, expired or other browser’s login_verifier.'),
      429: html('Too many sign-in steps from this address; try again later.'),
    },
    { description: 'The login app sends the browser to `redirect_to`, with `login_verifier`.' },
  );
  fastify.get(
    DELEGATED_CALLBACK_PATH,
    { schema: back, onRequest: web.signInStep },
    async (request, reply) => {
      const { owner, challenge } = await provider.logins.complete(
        field(request.query, 'login_verifier'),
        browserBinding(request, options),
      );
      await sessions.start(request, reply, owner);
      return reply.redirect(challenge.next, 303);
    },
  );
}
