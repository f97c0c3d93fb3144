/**
 * "Connected apps": every client the owner granted access to, with scope, when granted and
 * when last used, each of its tokens with the device it was first used from, and Revoke for
 * the app or for one token (connected-app-tokens.ts). Revocation is read by the provider on
 * every signed request, so it takes effect on the client's very next request (§2.3 "the
 * owner should be able to revoke").
 */
import type { FastifyInstance } from 'fastify';
import type { WebContext } from '../context.ts';
import { field } from '../form.ts';
import { formatTime, safeLink } from '../format.ts';
import { notFoundProblem } from '../error-page.ts';
import { signedInOrRedirect } from '../guard.ts';
import { csrfRefused, html, page, seeOther } from '../../http/route-schemas.ts';
import { TOKEN_REVOKE_PATH, tokenRow } from './connected-app-tokens.ts';

const appsSchema = page('Connected apps', {
  200: html(
    'The apps the signed-in owner allowed, each with its scope, last use, its tokens by device and Revoke buttons.',
  ),
  303: seeOther('Not signed in: to the sign-in page.'),
});
const forgetSchema = page(
  'Stop approving an app automatically',
  {
    303: seeOther('Back to Connected apps; the app’s next authorization asks again.'),
    403: csrfRefused,
  },
  { description: 'Form fields `client_key` and `_csrf`.' },
);
const revokeFormSchema = page(
  'Revoke an app: confirm',
  {
    200: html('The confirmation, naming the app.'),
    303: seeOther('Not signed in: to the sign-in page.'),
    404: html('No app by that client key.'),
  },
  { description: 'Query parameter `client_key`.' },
);
const revokeSchema = page(
  'Revoke an app',
  {
    303: seeOther('Back to Connected apps; the app’s tokens (and sessions) are revoked.'),
    403: csrfRefused,
  },
  { description: 'Form fields `client_key` and `_csrf`.' },
);

export async function connectedAppsRoutes(
  fastify: FastifyInstance,
  web: WebContext,
): Promise<void> {
  const { options, render, errors } = web;
  const { provider } = options;

  fastify.get('/account/apps', { schema: appsSchema }, async (request, reply) => {
    const signedIn = signedInOrRedirect(request, reply);
    if (signedIn === undefined) return reply;
    const tokens = await provider.tokens.ofOwner(signedIn.owner.id);
    const rows = (await provider.connections.list(signedIn.owner.id)).map((connection) => ({
      client: connection.client,
      tokens: tokens.filter((token) => token.clientKey === connection.client.key).map(tokenRow),
      website: safeLink(connection.client.website),
      scope: connection.scope.map((name) => provider.policy.scopes[name] ?? name),
      granted: formatTime(connection.grantedAt),
      lastUsed: connection.lastUsedAt === null ? 'Not used yet' : formatTime(connection.lastUsedAt),
      expires:
        connection.expiresAt === null ? 'Until you revoke it' : formatTime(connection.expiresAt),
    }));
    const remembered = (await provider.consents.list(signedIn.owner.id)).map((consent) => ({
      client: consent.client,
      scope: consent.scope
        .split(' ')
        .filter((name) => name !== '')
        .map((name) => provider.policy.scopes[name] ?? name),
      since: formatTime(consent.since),
    }));
    const nameOf = async (key: string) =>
      key === '' ? null : ((await provider.clients.find(key))?.name ?? 'The app');
    return render(request, reply, 'connected-apps', {
      title: 'Connected apps',
      rows,
      remembered,
      tokenRevokePath: TOKEN_REVOKE_PATH,
      revoked: await nameOf(field(request.query, 'revoked')),
      tokenRevoked: await nameOf(field(request.query, 'token_revoked')),
      forgotten: await nameOf(field(request.query, 'forgotten')),
    });
  });

  // Stopping a remembered consent only makes the app ask again; its tokens are kept (Revoke
  // ends those). CSRF-protected like every form.
  fastify.post(
    '/account/apps/forget',
    { preHandler: fastify.csrfProtection, schema: forgetSchema },
    async (request, reply) => {
      const signedIn = signedInOrRedirect(request, reply);
      if (signedIn === undefined) return reply;
      const clientKey = field(request.body, 'client_key');
      await provider.consents.forget(signedIn.owner.id, clientKey);
      return reply.redirect(`/account/apps?forgotten=${encodeURIComponent(clientKey)}`, 303);
    },
  );

  // A confirmation first: revoking cannot be undone (the app would have to be connected anew).
  fastify.get('/account/apps/revoke', { schema: revokeFormSchema }, async (request, reply) => {
    const signedIn = signedInOrRedirect(request, reply);
    if (signedIn === undefined) return reply;
    const client = await provider.clients.find(field(request.query, 'client_key'));
    if (client === undefined) return errors.show(request, reply, notFoundProblem);
    return render(request, reply, 'connected-app-revoke', {
      title: `Revoke access for ${client.name}?`,
      client,
    });
  });

  fastify.post(
    '/account/apps/revoke',
    { preHandler: fastify.csrfProtection, schema: revokeSchema },
    async (request, reply) => {
      const signedIn = signedInOrRedirect(request, reply);
      if (signedIn === undefined) return reply;
      const clientKey = field(request.body, 'client_key');
      await provider.connections.revoke(signedIn.owner.id, clientKey);
      return reply.redirect(`/account/apps?revoked=${encodeURIComponent(clientKey)}`, 303);
    },
  );
}
