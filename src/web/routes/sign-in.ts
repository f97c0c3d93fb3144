/** Sign-in and sign-out: throttled per (account, address) and per address, sessions rotate. */
import type { FastifyInstance } from 'fastify';
import { field, safeNext } from '../form.ts';
import type { WebContext } from '../context.ts';
import { csrfRefused, html, page, seeOther } from '../../http/route-schemas.ts';

const signInPage = page('Sign-in page', {
  200: html('The sign-in form (Latchkey accounts).'),
  303: seeOther('Already signed in: to `next`.'),
});
const signIn = page(
  'Sign in',
  {
    303: seeOther('Signed in: to `next` (a local path).'),
    400: html('The form again: a field was missing.'),
    403: csrfRefused,
    422: html('The form again: wrong username or password.'),
    429: html('Too many attempts; try again later.'),
  },
  { description: 'Form fields `username`, `password`, `next` and `_csrf`.' },
);
const signOut = page('Sign out', { 303: seeOther('To the sign-in page.'), 403: csrfRefused });

/** The sign-in form; when sign-in interrupts an authorization, it names the app asking. */
function signInForm(web: WebContext) {
  const { options, render } = web;
  const authorizationPages = [options.paths.authorize, options.paths.authenticate];

  /** When sign-in interrupts an authorization, say which app is asking (if the request is still good). */
  async function askingClient(next: string): Promise<{ readonly name: string } | null> {
    const url = new URL(next, 'http://latchkey.invalid');
    const token = url.searchParams.get('oauth_token');
    if (!authorizationPages.includes(url.pathname) || token === null) return null;
    try {
      return (await options.provider.authorization.describe(token)).client;
    } catch {
      return null;
    }
  }

  return async function showForm(
    request: Parameters<typeof render>[0],
    reply: Parameters<typeof render>[1],
    next: string,
    extra: { username?: string; error?: string; notice?: string },
    status = 200,
  ) {
    return render(
      request,
      reply,
      'sign-in',
      {
        title: 'Sign in',
        next,
        client: await askingClient(next),
        username: extra.username ?? '',
        error: extra.error ?? null,
        notice: extra.notice ?? null,
      },
      status,
    );
  };
}

export async function signInRoutes(fastify: FastifyInstance, web: WebContext): Promise<void> {
  const { options, sessions, throttle } = web;

  const showForm = signInForm(web);

  fastify.get('/signin', { schema: signInPage }, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const next = safeNext(field(query, 'next'));
    if (request.signedIn !== null) return reply.redirect(next, 303);
    const notice = field(query, 'signed_out') === '1' ? 'You are signed out.' : undefined;
    return showForm(request, reply, next, notice === undefined ? {} : { notice });
  });

  fastify.post(
    '/signin',
    {
      schema: signIn,
      // Counted before anything is read: the per-address cap over all sign-in surfaces.
      onRequest: web.signInStep,
      preHandler: fastify.csrfProtection,
    },
    async (request, reply) => {
      const username = field(request.body, 'username').trim();
      const password = field(request.body, 'password');
      const next = safeNext(field(request.body, 'next'));
      if (username === '' || password === '') {
        return showForm(
          request,
          reply,
          next,
          { username, error: 'Enter your username and your password.' },
          400,
        );
      }
      const verdict = await throttle.allow(username, request.ip);
      if (!verdict.allowed) {
        const minutes = Math.round(verdict.retryAfterSeconds / 60);
        reply.header('retry-after', String(verdict.retryAfterSeconds));
        return showForm(
          request,
          reply,
          next,
          {
            username,
            error: `Too many sign-in attempts for this account from your address. To keep it safe, sign-in is paused here: wait ${minutes} minutes, then try again.`,
          },
          429,
        );
      }
      const owner = await options.provider.owners.authenticate(username, password);
      if (owner === undefined) {
        return showForm(
          request,
          reply,
          next,
          { username, error: 'The username or password is not right. Check both and try again.' },
          422,
        );
      }
      await throttle.clear(username, request.ip);
      await sessions.start(request, reply, owner);
      return reply.redirect(next, 303);
    },
  );

  fastify.post(
    '/signout',
    { preHandler: fastify.csrfProtection, schema: signOut },
    async (request, reply) => {
      await sessions.end(request, reply);
      return reply.redirect('/signin?signed_out=1', 303);
    },
  );
}
