/**
 * The console's other pages: owners (search, pages, and revoking every token an owner granted,
 * behind a confirmation page), the sealing keys' status, and the webhooks with each hook's
 * delivery log. Owners have no disabled state: stopping an owner's access is revoking its
 * tokens, as `POST /admin/owners/{id}/revoke` does on the API.
 */
import type { FastifyInstance } from 'fastify';
import { field } from '../form.ts';
import { formatTime } from '../format.ts';
import { CONSOLE, consoleRoute, type ConsoleContext } from './context.ts';

/** Deliveries shown per hook. */
const DELIVERIES_SHOWN = 20;

const ownerPath = (id: string) => `${CONSOLE}/owners/${encodeURIComponent(id)}`;

export function systemRoutes(fastify: FastifyInstance, web: ConsoleContext): void {
  const { provider, render } = web;

  fastify.get(`${CONSOLE}/owners`, consoleRoute('owners', 'read'), async (request, reply) => {
    const search = field(request.query, 'q').trim().slice(0, 200);
    const cursor = field(request.query, 'cursor');
    const page = await provider.admin.owners({
      search: search === '' ? undefined : search,
      cursor: cursor === '' ? undefined : cursor,
    });
    const more = new URLSearchParams({ q: search, cursor: page.next ?? '' });
    return render(request, reply, 'owners', {
      title: 'Owners',
      search,
      owners: page.items.map((owner) => ({
        ...owner,
        created: formatTime(owner.createdAt),
        path: ownerPath(owner.id),
      })),
      next: page.next === undefined ? null : `${CONSOLE}/owners?${more.toString()}`,
      done: field(request.query, 'done'),
    });
  });

  fastify.get(
    `${CONSOLE}/owners/:id/revoke`,
    consoleRoute('confirm revoking an owner’s tokens', 'tokens.revoke', ['id']),
    async (request, reply) => {
      const owner = await provider.admin.owner(field(request.params, 'id'));
      const grants = await provider.admin.grants({ ownerId: owner.id, limit: 500 });
      return render(request, reply, 'owner-revoke', {
        title: `Revoke every token of ${owner.name}?`,
        owner,
        grants: grants.items.length,
        path: ownerPath(owner.id),
      });
    },
  );

  fastify.post(
    `${CONSOLE}/owners/:id/revoke`,
    consoleRoute('revoke every token of an owner', 'tokens.revoke', ['id']),
    async (request, reply) => {
      const owner = await provider.admin.owner(field(request.params, 'id'));
      const count = await provider.admin.revokeTokens({ ownerId: owner.id });
      return reply.redirect(`${CONSOLE}/owners?done=${count}`, 303);
    },
  );

  fastify.get(
    `${CONSOLE}/keys`,
    consoleRoute('the sealing keys', 'read'),
    async (request, reply) => {
      const status = await provider.admin.keys.status();
      return render(request, reply, 'keys', {
        title: 'Sealing keys',
        rows: Object.entries(status).map(([key, count]) => ({ key, count })),
      });
    },
  );

  fastify.get(
    `${CONSOLE}/webhooks`,
    consoleRoute('webhooks and their deliveries', 'read'),
    async (request, reply) => {
      const hooks = await Promise.all(
        (await provider.webhooks.list()).map(async (hook) => ({
          ...hook,
          created: formatTime(hook.createdAt),
          disabled: hook.disabledAt === null ? '' : formatTime(hook.disabledAt),
          deliveries: (
            await provider.webhooks.deliveries({ webhookId: hook.id, limit: DELIVERIES_SHOWN })
          ).map((delivery) => ({
            ...delivery,
            created: formatTime(delivery.createdAt),
            outcome:
              delivery.deliveredAt !== null
                ? `delivered ${formatTime(delivery.deliveredAt)}`
                : delivery.nextAttemptAt !== null
                  ? `next attempt ${formatTime(delivery.nextAttemptAt)}`
                  : 'given up',
          })),
        })),
      );
      return render(request, reply, 'webhooks', { title: 'Webhooks', hooks, wide: true });
    },
  );
}
