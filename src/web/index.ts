/**
 * `webPlugin`: every page a person sees (docs/pages.md), signing owners in through the
 * configured identity source (docs/identity.md), with the login challenge admin API when the
 * sign-in is delegated to the team's login app. Registered by the app, not wrapped
 * in fastify-plugin, so its parsers, hooks and error handler stay inside its own context:
 * the OAuth endpoints keep their raw form parser and their `oauth_problem` error replies.
 * Security headers (CSP, frame protection) come from the app's helmet at the root.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import cookie from '@fastify/cookie';
import csrfProtection from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import rateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import type { WebContext } from './context.ts';
import { cookieName } from '../http/cookie-names.ts';
import { DEFAULT_BODY_LIMIT } from '../http/options.ts';
import { registerLoginAdmin } from '../http/routes/admin-login.ts';
import { page } from '../http/route-schemas.ts';
import { createErrorPages } from './error-page.ts';
import {
  DELEGATED_CALLBACK_PATH,
  SIGN_IN_REFUSED_PATH,
  createExternalSignIn,
} from './identity/external.ts';
import { createOidcSignIn } from './identity/oidc.ts';
import { resolveWebOptions } from './options.ts';
import type { WebOptions } from './options.ts';
import { createRenderer } from './render.ts';
import { authorizeRoutes } from './routes/authorize.ts';
import { connectedAppsRoutes } from './routes/connected-apps.ts';
import { connectedAppTokenRoutes } from './routes/connected-app-tokens.ts';
import { developerRoutes } from './routes/developer.ts';
import { docsRoutes } from './routes/docs.ts';
import { homeRoutes } from './routes/home.ts';
import { externalSignInRoutes } from './routes/sign-in-external.ts';
import { signInRoutes } from './routes/sign-in.ts';
import { createSessions, csrfUserInfo } from './sessions.ts';
import { signInCounters, signInStep } from './sign-in-limit.ts';

export type { WebOptions } from './options.ts';
export { IdentityProviderError } from './identity/oidc.ts';

const staticRoot = fileURLToPath(new URL('./static/', import.meta.url));

export async function webPlugin(fastify: FastifyInstance, rawOptions: WebOptions): Promise<void> {
  const options = resolveWebOptions(rawOptions);
  const secret = options.sessionSecret ?? randomBytes(32).toString('base64url');
  // The app registers @fastify/cookie in the pages' context (signed with sessionSecret); standalone
  // use (tests, embedding) gets its own.
  if (!fastify.hasRequestDecorator('cookies')) await fastify.register(cookie, { secret });

  await fastify.register(formbody, { bodyLimit: DEFAULT_BODY_LIMIT });
  await fastify.register(csrfProtection, {
    sessionPlugin: '@fastify/cookie',
    cookieKey: cookieName('csrf', options.secureCookies),
    cookieOpts: {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: options.secureCookies,
      signed: true,
    },
    // Tokens are bound to the session: one issued before sign-in, or to another session, fails.
    getUserInfo: csrfUserInfo,
    csrfOpts: { hmacKey: createHash('sha256').update(`latchkey csrf ${secret}`).digest() },
  });
  await fastify.register(rateLimit, {
    global: false,
    store: signInCounters(options.provider.signIns),
  });
  await fastify.register(fastifyStatic, {
    root: staticRoot,
    prefix: '/static/',
    decorateReply: false,
    maxAge: '1h',
  });

  const sessions = createSessions(options);
  const render = createRenderer(options);
  const errors = createErrorPages(render, Math.ceil(options.signIn.windowSeconds / 60));
  const { identity } = options;
  const oidc = identity.source === 'oidc' ? createOidcSignIn(identity) : undefined;
  const step = signInStep(fastify, options.provider.signIns);
  const external =
    identity.source === 'local' ? undefined : createExternalSignIn(options, oidc, step);
  const web: WebContext = {
    options,
    render,
    errors,
    sessions,
    throttle: options.provider.signIns,
    signInStep: step,
    external,
  };

  // Browsers ask for /favicon.ico whatever a page links: the same icon, not a 404.
  const favicon = readFileSync(join(staticRoot, 'favicon.svg'));
  fastify.get(
    '/favicon.ico',
    {
      schema: page('The site icon', {
        200: {
          description: 'An SVG icon.',
          content: { 'image/svg+xml': { schema: { type: 'string' } } },
        },
      }),
    },
    async (_request, reply) =>
      reply.type('image/svg+xml').header('cache-control', 'public, max-age=3600').send(favicon),
  );

  fastify.decorateRequest('signedIn', null);
  fastify.addHook('onRequest', async function loadSession(request) {
    if (!request.url.startsWith('/static/')) await sessions.load(request);
  });
  fastify.setErrorHandler(async function webErrorPage(error, request, reply) {
    return errors.handle(error, request, reply);
  });

  if (rawOptions.landingPage ?? true) await homeRoutes(fastify, web);
  if (external === undefined) await signInRoutes(fastify, web);
  else await externalSignInRoutes(fastify, web, external, oidc);
  if (identity.source === 'delegated') {
    await registerLoginAdmin(fastify, {
      provider: options.provider,
      adminToken: identity.adminToken,
      baseUrlOf: options.baseUrlOf,
      callbackPath: DELEGATED_CALLBACK_PATH,
      refusedPath: SIGN_IN_REFUSED_PATH,
      authorizePath: options.paths.authorize,
    });
  }
  await authorizeRoutes(fastify, web);
  await connectedAppsRoutes(fastify, web);
  await connectedAppTokenRoutes(fastify, web);
  await developerRoutes(fastify, web);
  await docsRoutes(fastify, web);
}
