/**
 * Turns a view and its data into an HTML response. Every page gets a fresh CSRF token bound
 * to the session (so the sign-out button in the header works everywhere), `no-store` (pages
 * carry tokens, verifiers and secrets that must not sit in a shared cache), and the signed-in
 * owner's name. Eta escapes every `<%= %>` interpolation.
 */
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ResolvedWebOptions } from './options.ts';
import { csrfUserInfo } from './sessions.ts';

const views = fileURLToPath(new URL('./views/', import.meta.url));

export type PageData = Readonly<Record<string, unknown>> & { readonly title: string };

export function createRenderer(options: ResolvedWebOptions) {
  const eta = new Eta({ views, cache: true, autoEscape: true });

  return async function render(
    request: FastifyRequest,
    reply: FastifyReply,
    view: string,
    data: PageData,
    status = 200,
  ): Promise<FastifyReply> {
    const signedIn = request.signedIn ?? null;
    const csrf = reply.generateCsrf({ userInfo: csrfUserInfo(request) });
    const html = await eta.renderAsync(view, {
      ...data,
      csrf,
      view,
      signedInAs: signedIn?.owner.name ?? null,
      paths: options.paths,
    });
    return sendPage(reply, status, html);
  };
}

/** A rendered page as every page is answered: HTML, never stored by a cache (it may hold a CSRF token). */
export function sendPage(reply: FastifyReply, status: number, html: string) {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .send(html);
}

export type Render = ReturnType<typeof createRenderer>;
