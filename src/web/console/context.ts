/**
 * What the console's routes share: the provider, its sessions, and rendering with the
 * signed-in admin's name and role. A route names the action it takes (`config.action`): the
 * guard (index.ts) checks it against the role before the handler runs, and the pages offer
 * only what the role allows (docs/admin.md "Roles").
 */
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import { html, page, seeOther } from '../../http/route-schemas.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AdminAction, AdminIdentity, Provider } from '../../provider/index.ts';
import { roleMay } from '../../provider/admin/roles.ts';
import { sendPage } from '../render.ts';
import type { ConsoleSession, ConsoleSessions } from '../../provider/admin/console-sessions.ts';

/** Where the console lives, on the admin listener or the main one. */
export const CONSOLE = '/admin/console';

declare module 'fastify' {
  interface FastifyRequest {
    /** The console's signed-in admin, or null (console routes only). */
    consoleSession: ConsoleSession | null;
  }
}

/** What each console route declares in its `config`; absent: the sign-in pages. */
export interface ConsoleRouteConfig {
  readonly action?: AdminAction;
}

export interface ConsoleContext {
  readonly provider: Provider;
  readonly sessions: ConsoleSessions;
  readonly render: ConsoleRender;
}

/** The signed-in admin; the guard ran before any route that asks. */
export function adminOf(request: FastifyRequest): AdminIdentity {
  const session = request.consoleSession;
  if (session === null) throw new Error('The console guard did not run.');
  return session.admin;
}

/** What CSRF tokens are bound to: the console session, or one value before sign-in. */
export function consoleCsrfInfo(request: FastifyRequest): string {
  return request.consoleSession?.id ?? 'console-signed-out';
}

const views = fileURLToPath(new URL('../views/', import.meta.url));

export function createConsoleRenderer() {
  const eta = new Eta({ views, cache: true, autoEscape: true });
  return async function render(
    request: FastifyRequest,
    reply: FastifyReply,
    view: string,
    data: Readonly<Record<string, unknown>> & { readonly title: string },
    status = 200,
  ): Promise<FastifyReply> {
    const admin = request.consoleSession?.admin ?? null;
    const html = await eta.renderAsync(`console/${view}`, {
      ...data,
      view: `console-${view}`,
      csrf: reply.generateCsrf({ userInfo: consoleCsrfInfo(request) }),
      admin,
      base: CONSOLE,
      may: (action: AdminAction) => admin !== null && roleMay(admin.role, action),
    });
    return sendPage(reply, status, html);
  };
}

export type ConsoleRender = ReturnType<typeof createConsoleRenderer>;

/** What every console route may answer, for /openapi.json. */
const answers = {
  200: html('The page.'),
  303: seeOther(
    'Not signed in: to the console sign-in page; after a change, to the page it changed.',
  ),
  400: html('A filter or field that is not valid.'),
  401: html('Sign-in: the admin token is not valid; the form again.'),
  403: html('The role may not do this, or the form’s CSRF token is missing or forged.'),
  404: html('No such client, owner, token or action.'),
  413: html('The form is too large.'),
  429: html('Too many wrong admin tokens from this address; Retry-After says when to try again.'),
};

/**
 * A console route's options: the action its role must allow (none for the sign-in pages) and
 * its schema, with its path parameters.
 */
export function consoleRoute(
  summary: string,
  action: AdminAction | undefined,
  params: readonly string[] = [],
) {
  const config: ConsoleRouteConfig = action === undefined ? {} : { action };
  return {
    config,
    schema: page(
      `Console: ${summary}`,
      answers,
      params.length === 0
        ? {}
        : {
            params: Object.fromEntries(
              params.map((name) => [name, { type: 'string', minLength: 1, maxLength: 200 }]),
            ),
          },
    ),
  };
}
