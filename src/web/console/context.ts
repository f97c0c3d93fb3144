/**
 * What the console's routes share: the provider, its sessions, and rendering with the
 * signed-in admin's name and role. A route names the action it takes (`config.action`): the
 * guard (index.ts) checks it against the role before the handler runs, and the pages offer
 * only what the role allows (docs/admin.md "Roles").
 */
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AdminAction, AdminIdentity, Provider } from '../../provider/index.ts';
import { roleMay } from '../../provider/admin/roles.ts';
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
    return reply
      .code(status)
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(html);
  };
}

export type ConsoleRender = ReturnType<typeof createConsoleRenderer>;
