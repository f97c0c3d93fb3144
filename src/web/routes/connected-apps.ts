/**
 * "Connected apps": every client the owner granted access to, with scope, when
 * granted and when last used, and Revoke. Revocation is read by the provider on every signed
 * request, so it takes effect on the client's very next request (§2.3 "the owner should be
 * able to revoke").
 */
import type { FastifyInstance } from 'fastify';
import type { Client, TokenCredential } from '../../store/types.ts';
import type { WebContext } from '../context.ts';
import { field } from '../form.ts';
import { formatTime, safeLink } from '../format.ts';
import { signedInOrRedirect } from '../guard.ts';
import { parseScope } from '../../provider/index.ts';
import { html, page, seeOther } from '../../http/route-schemas.ts';
import { usableUntil } from '../../provider/index.ts';

interface Connection {
  readonly client: Client;
  readonly scope: string[];
  readonly grantedAt: number;
  readonly lastUsedAt: number | null;
  readonly expiresAt: number | null;
}

/** One row per client: several live tokens of one client are one connection. */
function connections(
  tokens: readonly TokenCredential[],
  now: number,
): Map<string, Omit<Connection, 'client'>> {
  const byClient = new Map<string, Omit<Connection, 'client'>>();
  for (const token of tokens) {
    // A token with a session (session extension) lasts, renewed, until the session ends.
    const until = usableUntil(token);
    if (token.revokedAt !== null || (until !== null && until <= now)) continue;
    const seen = byClient.get(token.clientKey);
    const latest = (a: number | null, b: number | null) =>
      a === null ? b : b === null ? a : Math.max(a, b);
    byClient.set(token.clientKey, {
      scope: [...new Set([...(seen?.scope ?? []), ...parseScope(token.scope)])],
      grantedAt: Math.min(seen?.grantedAt ?? token.issuedAt, token.issuedAt),
      lastUsedAt: latest(seen?.lastUsedAt ?? null, token.lastUsedAt),
      // A connection lasts as long as its longest-lived token; null means until revoked.
      expiresAt:
        seen !== undefined && (seen.expiresAt === null || until === null)
          ? null
          : latest(seen?.expiresAt ?? null, until),
    });
  }
  return byClient;
}

const appsSchema = page('Connected apps', {
  200: html(
    'The apps the signed-in owner allowed, each with its scope, last use and a Revoke button.',
  ),
  303: seeOther('Not signed in: to the sign-in page.'),
});
const revokeSchema = page(
  'Revoke an app',
  { 303: seeOther('Back to Connected apps; the app’s tokens (and sessions) are revoked.') },
  { description: 'Form fields `client_key` and `_csrf`.' },
);

export async function connectedAppsRoutes(
  fastify: FastifyInstance,
  web: WebContext,
): Promise<void> {
  const { options, render } = web;
  const { provider } = options;

  fastify.get('/account/apps', { schema: appsSchema }, async (request, reply) => {
    const signedIn = signedInOrRedirect(request, reply);
    if (signedIn === undefined) return reply;
    await provider.flushLastUse(); // last-use times are batched; show the latest
    const now = provider.now();
    const rows = [];
    for (const [key, connection] of connections(
      await provider.tokens.list({ ownerId: signedIn.owner.id }),
      now,
    )) {
      const client = await provider.store.clients.find(key);
      if (client === undefined) continue;
      rows.push({
        client,
        website: safeLink(client.website),
        scope: connection.scope.map((name) => provider.policy.scopes[name] ?? name),
        granted: formatTime(connection.grantedAt),
        lastUsed:
          connection.lastUsedAt === null ? 'Not used yet' : formatTime(connection.lastUsedAt),
        expires:
          connection.expiresAt === null ? 'Until you revoke it' : formatTime(connection.expiresAt),
        grantedAt: connection.grantedAt,
      });
    }
    rows.sort((a, b) => b.grantedAt - a.grantedAt);
    const revokedKey = field(request.query, 'revoked');
    const revoked =
      revokedKey === ''
        ? null
        : ((await provider.store.clients.find(revokedKey))?.name ?? 'The app');
    return render(request, reply, 'connected-apps', { title: 'Connected apps', rows, revoked });
  });

  fastify.post(
    '/account/apps/revoke',
    { preHandler: fastify.csrfProtection, schema: revokeSchema },
    async (request, reply) => {
      const signedIn = signedInOrRedirect(request, reply);
      if (signedIn === undefined) return reply;
      const clientKey = field(request.body, 'client_key');
      await provider.tokens.revokeGrant(signedIn.owner.id, clientKey);
      return reply.redirect(`/account/apps?revoked=${encodeURIComponent(clientKey)}`, 303);
    },
  );
}
