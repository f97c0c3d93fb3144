/**
 * `/admin/owners`: list (filters, pages), read, delete with everything they granted. Owners
 * have no disabled state in the model: to stop an owner's access, revoke their tokens
 * (`POST /admin/tokens/revoke` with `owner`) or delete the owner.
 */
import type { FastifyInstance } from 'fastify';
import type { Provider } from '../../provider/index.ts';
import {
  checkIfMatch,
  etagHeader,
  json,
  operation,
  pageAnswer,
  pageQuery,
  pageRequestOf,
  pathParams,
  problems,
  sendWithEtag,
} from './route-parts.ts';
import { ownerSchema, ownerView } from './views.ts';

const idParams = pathParams('id');

export function registerAdminOwners(scope: FastifyInstance, provider: Provider): void {
  scope.get(
    '/admin/owners',
    {
      config: { action: 'read' },
      schema: operation(
        'List resource owners',
        'Owners in id order, a page at a time; filtered by source, or text in the name, username or subject.',
        {
          querystring: {
            type: 'object',
            properties: {
              ...pageQuery,
              source: { enum: ['local', 'oidc', 'delegated'] },
              q: { type: 'string', maxLength: 200 },
            },
            additionalProperties: false,
          },
          response: { 200: json('A page of owners.', pageAnswer(ownerSchema)), ...problems(400) },
        },
      ),
    },
    async (request, reply) => {
      const query = request.query as {
        cursor?: string;
        limit?: string;
        source?: 'local' | 'oidc' | 'delegated';
        q?: string;
      };
      const page = await provider.admin.owners({
        ...pageRequestOf(query),
        source: query.source,
        search: query.q,
      });
      return reply.send({ items: page.items.map(ownerView), next: page.next ?? null });
    },
  );

  scope.get(
    '/admin/owners/:id',
    {
      config: { action: 'read' },
      schema: operation('Read a resource owner', 'The owner, never a password hash.', {
        params: idParams,
        response: { 200: json('The owner.', ownerSchema, etagHeader), ...problems(404) },
      }),
    },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      return sendWithEtag(reply, ownerView(await provider.admin.owner(id)));
    },
  );

  scope.delete(
    '/admin/owners/:id',
    {
      config: { action: 'owners.delete' },
      schema: operation(
        'Delete a resource owner',
        'The owner, every token and grant they gave and their sessions. `If-Match` is checked when sent.',
        {
          params: idParams,
          response: { 204: { description: 'Deleted.', type: 'null' }, ...problems(404, 412) },
        },
      ),
    },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      const owner = await provider.admin.owner(id);
      checkIfMatch(request, ownerView(owner), false);
      await provider.owners.remove(owner.id);
      return reply.code(204).send();
    },
  );
}
