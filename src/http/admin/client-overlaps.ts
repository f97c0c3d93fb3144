/**
 * `/admin/clients/{key}/overlaps`: a client's previous secret or public key still accepted
 * after a rotation with overlap (docs/decisions.md "Rotation with overlap"), and ending them
 * at once (a previous secret that leaked). Never the previous value itself.
 */
import type { FastifyInstance } from 'fastify';
import type { Provider } from '../../provider/index.ts';
import { actionConfig, json, operation, problems } from './route-parts.ts';
import { iso, isoOrNull } from './views.ts';

const time = { type: 'string', format: 'date-time' } as const;

const overlapsSchema = {
  type: 'object',
  properties: {
    overlaps: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          credential: { type: 'string', enum: ['secret', 'public-key'] },
          replacedAt: time,
          until: { ...time, description: 'The previous credential is refused from then on.' },
          lastUsedAt: {
            type: ['string', 'null'],
            format: 'date-time',
            description:
              'The last request it signed that was accepted (written within the upkeep interval), or null.',
          },
        },
        required: ['credential', 'replacedAt', 'until', 'lastUsedAt'],
      },
    },
  },
  required: ['overlaps'],
} as const;

export function registerClientOverlaps(
  scope: FastifyInstance,
  provider: Provider,
  params: object,
): void {
  const { clients } = provider;
  const answer = async (key: string) => ({
    overlaps: (await clients.overlaps(key)).map((overlap) => ({
      credential: overlap.kind,
      replacedAt: iso(overlap.replacedAt),
      until: iso(overlap.until),
      lastUsedAt: isoOrNull(overlap.lastUsedAt),
    })),
  });

  scope.get(
    '/admin/clients/:key/overlaps',
    {
      ...actionConfig('read'),
      schema: operation(
        'A client’s overlaps',
        'The previous secret or public key still accepted beside the current one, and until when.',
        {
          params,
          response: { 200: json('Its running overlaps.', overlapsSchema), ...problems(404) },
        },
      ),
    },
    async (request, reply) => {
      const { key } = request.params as { key: string };
      await clients.get(key);
      return reply.send(await answer(key));
    },
  );

  scope.post(
    '/admin/clients/:key/end-overlaps',
    {
      ...actionConfig('clients.rotate'),
      schema: operation(
        'End a client’s overlaps',
        'Its previous secret and public key are refused from the next request on.',
        {
          params,
          response: {
            200: json('Its overlaps now (none).', overlapsSchema),
            ...problems(404),
          },
        },
      ),
    },
    async (request, reply) => {
      const { key } = request.params as { key: string };
      await clients.get(key);
      await clients.endOverlaps(key);
      return reply.send(await answer(key));
    },
  );
}
