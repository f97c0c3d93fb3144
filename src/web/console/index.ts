/**
 * The operator console (docs/admin.md "Console"): server-rendered pages under /admin/console
 * over the provider's admin desk, for people rather than scripts. Sign-in is with an admin
 * token, whose role applies exactly as on the admin API: every route names its action, checked
 * before the handler (403 when the role may not), and what it changes is recorded in the audit
 * trail with the admin token's name. Forms carry CSRF tokens bound to the console session;
 * the session cookie is HttpOnly, SameSite=Strict, Secure under TLS, and holds a random value,
 * never the token. Registered beside the admin API, in a context of its own.
 */
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import cookie from '@fastify/cookie';
import csrfProtection from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ConsoleContext as AppConsoleContext } from '../../http/app.ts';
import { cookieName } from '../../http/cookie-names.ts';
import { pageSecurityHeaders } from '../../http/page-security.ts';
import { auditRoutes } from './audit.ts';
import { clientRoutes } from './clients.ts';
import {
  CONSOLE,
  consoleCsrfInfo,
  createConsoleRenderer,
  type ConsoleContext,
  type ConsoleRouteConfig,
} from './context.ts';
import { consoleErrorHandler } from './errors.ts';
import { signInRoutes } from './sign-in.ts';
import { systemRoutes } from './system.ts';

/** The largest console form, in bytes: a pasted token or a few filter fields. */
export const CONSOLE_BODY_LIMIT = 4 * 1024;

const staticRoot = fileURLToPath(new URL('../static/', import.meta.url));

export async function consolePlugin(
  fastify: FastifyInstance,
  options: AppConsoleContext,
): Promise<void> {
  const { provider, secureCookies } = options;
  const secret = options.sessionSecret;
  if (!fastify.hasRequestDecorator('cookies')) await fastify.register(cookie, { secret });
  await fastify.register(helmet, pageSecurityHeaders(options.transport));
  await fastify.register(formbody, { bodyLimit: CONSOLE_BODY_LIMIT });
  await fastify.register(csrfProtection, {
    sessionPlugin: '@fastify/cookie',
    cookieKey: cookieName('consoleCsrf', secureCookies),
    cookieOpts: {
      path: '/',
      httpOnly: true,
      sameSite: 'strict',
      secure: secureCookies,
      signed: true,
    },
    getUserInfo: consoleCsrfInfo,
    csrfOpts: {
      hmacKey: createHash('sha256').update(`latchkey console csrf ${secret}`).digest(),
    },
  });
  // The same stylesheet and icon as the pages, served here too: the admin listener has no /static/.
  await fastify.register(fastifyStatic, {
    root: staticRoot,
    prefix: `${CONSOLE}/static/`,
    decorateReply: false,
    maxAge: '1h',
  });

  const web: ConsoleContext = {
    provider,
    sessions: provider.admin.consoleSessions,
    render: createConsoleRenderer(),
  };
  const sessionCookie = cookieName('console', secureCookies);

  fastify.decorateRequest('consoleSession', null);
  fastify.setErrorHandler(consoleErrorHandler(web));
  fastify.addHook('onRequest', async function loadConsoleSession(request, reply) {
    if (request.url.startsWith(`${CONSOLE}/static/`)) return;
    request.consoleSession = null;
    const value = request.cookies[sessionCookie];
    if (value !== undefined && value.length <= 100) {
      request.consoleSession = (await web.sessions.resume(value)) ?? null;
    }
    const { action } = request.routeOptions.config as ConsoleRouteConfig;
    if (action === undefined) return; // the sign-in pages and unknown paths
    if (request.consoleSession === null) return toSignIn(request, reply);
    provider.admin.authorize(request.consoleSession.admin, action);
  });
  // After the body is read: forms are checked against CSRF, then run in the audit context.
  fastify.addHook('preHandler', async function checkConsoleForm(request, reply) {
    if (request.method === 'POST') await csrfCheck(fastify, request, reply);
  });
  fastify.addHook('preHandler', function consoleAuditContext(request, _reply, done) {
    const admin = request.consoleSession?.admin.name;
    provider.audit.within({ address: request.ip, actor: 'admin', admin }, done);
  });

  const cookies = {
    set(reply: FastifyReply, value: string) {
      reply.setCookie(sessionCookie, value, {
        path: '/',
        httpOnly: true,
        sameSite: 'strict',
        secure: secureCookies,
        maxAge: web.sessions.lifetimeSeconds,
      });
    },
    clear(reply: FastifyReply) {
      reply.clearCookie(sessionCookie, {
        path: '/',
        httpOnly: true,
        sameSite: 'strict',
        secure: secureCookies,
      });
    },
    read: (request: FastifyRequest) => request.cookies[sessionCookie],
  };
  signInRoutes(fastify, web, cookies);
  clientRoutes(fastify, web);
  auditRoutes(fastify, web);
  systemRoutes(fastify, web);
}

export type ConsoleCookies = {
  set(reply: FastifyReply, value: string): void;
  clear(reply: FastifyReply): void;
  read(request: FastifyRequest): string | undefined;
};

function toSignIn(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const next = request.method === 'GET' ? request.url : CONSOLE;
  return reply.redirect(`${CONSOLE}/signin?next=${encodeURIComponent(next)}`, 303);
}

/** @fastify/csrf-protection's check, as a promise (it throws 403 on a missing or forged token). */
function csrfCheck(fastify: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
  return new Promise<void>((resolve, reject) => {
    fastify.csrfProtection(request, reply, (error?: Error) =>
      error === undefined ? resolve() : reject(error),
    );
  });
}
