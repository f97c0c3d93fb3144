/**
 * Signing in to the console with an admin token, and out. A wrong token shows the form again
 * with 401 and counts towards the address's limit of wrong admin tokens, shared with the admin
 * API: past it, 429 until the window ends, a right token included.
 */
import type { FastifyInstance } from 'fastify';
import { AdminRefusal } from '../../provider/index.ts';
import { field, safeNext } from '../form.ts';
import type { ConsoleCookies } from './index.ts';
import { CONSOLE, consoleRoute, type ConsoleContext } from './context.ts';

/** Where to go after signing in: a console path only. */
function nextOf(value: string): string {
  const next = safeNext(value);
  return next === CONSOLE || next.startsWith(`${CONSOLE}/`) ? next : `${CONSOLE}/clients`;
}

export function signInRoutes(
  fastify: FastifyInstance,
  web: ConsoleContext,
  cookies: ConsoleCookies,
): void {
  const { render, sessions } = web;
  const minutes = Math.round(sessions.lifetimeSeconds / 60);

  fastify.get(CONSOLE, consoleRoute('to the clients', 'read'), async (_request, reply) =>
    reply.redirect(`${CONSOLE}/clients`, 303),
  );

  fastify.get(
    `${CONSOLE}/signin`,
    consoleRoute('sign-in form', undefined),
    async (request, reply) => {
      if (request.consoleSession !== null) return reply.redirect(`${CONSOLE}/clients`, 303);
      return render(request, reply, 'sign-in', {
        title: 'Console sign-in',
        next: nextOf(field(request.query, 'next')),
        refused: null,
        minutes,
      });
    },
  );

  fastify.post(
    `${CONSOLE}/signin`,
    consoleRoute('sign in with an admin token', undefined),
    async (request, reply) => {
      const next = nextOf(field(request.body, 'next'));
      try {
        const { cookie } = await sessions.start(field(request.body, 'token'), request.ip);
        const old = cookies.read(request);
        if (old !== undefined) await sessions.end(old);
        cookies.set(reply, cookie);
        return reply.redirect(next, 303);
      } catch (error) {
        if (!(error instanceof AdminRefusal) || error.status !== 401) throw error;
        return render(
          request,
          reply,
          'sign-in',
          { title: 'Console sign-in', next, refused: error.message, minutes },
          401,
        );
      }
    },
  );

  fastify.post(
    `${CONSOLE}/signout`,
    consoleRoute('sign out', undefined),
    async (request, reply) => {
      const value = cookies.read(request);
      if (value !== undefined) await sessions.end(value);
      cookies.clear(reply);
      return reply.redirect(`${CONSOLE}/signin`, 303);
    },
  );
}
