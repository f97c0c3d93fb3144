/**
 * Revoking one token from Connected apps: an owner who connected an app from two devices (a
 * phone, a laptop) ends the token of one and keeps the other working (§2.3 "the owner should
 * be able to revoke issued token credentials"; tokens "can be revoked individually", the spec's
 * introduction). A confirmation first, then a CSRF-protected form, as Revoke for a whole app.
 * A token is named by its id in the owner's list, never by the token itself; an id that is not
 * one of the signed-in owner's tokens is "not found", whoever it belongs to.
 */
import type { FastifyInstance } from 'fastify';
import type { WebContext } from '../context.ts';
import { field } from '../form.ts';
import { formatTime } from '../format.ts';
import { notFoundProblem } from '../error-page.ts';
import { signedInOrRedirect } from '../guard.ts';
import type { OwnedToken, Provider } from '../../provider/index.ts';
import { csrfRefused, html, page, seeOther } from '../../http/route-schemas.ts';

/** Where Connected apps lists the tokens and links to this confirmation. */
export const TOKEN_REVOKE_PATH = '/account/apps/tokens/revoke';

const confirmSchema = page(
  'Revoke one token of an app: confirm',
  {
    200: html('The confirmation, naming the app and the device the token was first used from.'),
    303: seeOther('Not signed in: to the sign-in page.'),
    404: html('No token of the signed-in owner by that id.'),
  },
  { description: 'Query parameter `token_id` (from Connected apps).' },
);
const revokeSchema = page(
  'Revoke one token of an app',
  {
    303: seeOther('Back to Connected apps; that token is revoked, the app’s others kept.'),
    403: csrfRefused,
    404: html('No token of the signed-in owner by that id; nothing was changed.'),
  },
  { description: 'Form fields `token_id` and `_csrf`.' },
);

/** A token as Connected apps shows it: the device in short (the whole hint on hover), times. */
export function tokenRow(token: OwnedToken) {
  return {
    id: token.id,
    device: token.device ?? (token.lastUsedAt === null ? 'Not used yet' : 'Not known'),
    deviceHint: token.deviceHint ?? '',
    issued: formatTime(token.issuedAt),
    lastUsed: token.lastUsedAt === null ? 'Not used yet' : formatTime(token.lastUsedAt),
  };
}

async function appName(provider: Provider, clientKey: string): Promise<string> {
  return (await provider.clients.find(clientKey))?.name ?? 'The app';
}

export async function connectedAppTokenRoutes(
  fastify: FastifyInstance,
  web: WebContext,
): Promise<void> {
  const { options, render, errors } = web;
  const { provider } = options;

  // A confirmation first: revoking cannot be undone (that device would connect anew).
  fastify.get(TOKEN_REVOKE_PATH, { schema: confirmSchema }, async (request, reply) => {
    const signedIn = signedInOrRedirect(request, reply);
    if (signedIn === undefined) return reply;
    const id = field(request.query, 'token_id');
    const token = (await provider.tokens.ofOwner(signedIn.owner.id)).find((t) => t.id === id);
    if (token === undefined) return errors.show(request, reply, notFoundProblem);
    const app = await appName(provider, token.clientKey);
    const row = tokenRow(token);
    return render(request, reply, 'connected-app-token-revoke', {
      title: `Revoke ${app} on ${row.device}?`,
      app,
      token: row,
    });
  });

  fastify.post(
    TOKEN_REVOKE_PATH,
    { preHandler: fastify.csrfProtection, schema: revokeSchema },
    async (request, reply) => {
      const signedIn = signedInOrRedirect(request, reply);
      if (signedIn === undefined) return reply;
      // NotFoundError for an id not the owner's: the error page's 404, as for no such token.
      const revoked = await provider.tokens.revokeOwned(
        signedIn.owner.id,
        field(request.body, 'token_id'),
      );
      return reply.redirect(
        `/account/apps?token_revoked=${encodeURIComponent(revoked.clientKey)}`,
        303,
      );
    },
  );
}
