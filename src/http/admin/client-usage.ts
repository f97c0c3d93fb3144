/**
 * `GET /admin/clients/{key}/usage`: a client's use per UTC day (src/provider/clients/usage.ts),
 * as its developer sees it in the portal and `latchkey clients usage` prints it: verified
 * requests, failures by oauth_problem, distinct owners, last use.
 */
import type { FastifyInstance } from 'fastify';
import {
  DEFAULT_USAGE_DAYS,
  InputError,
  USAGE_RETENTION_DAYS,
  type Provider,
} from '../../provider/index.ts';
import { actionConfig, json, operation, problems } from './route-parts.ts';
import { isoOrNull } from './views.ts';

const usageSchema = {
  type: 'object',
  properties: {
    client: { type: 'string' },
    days: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          day: { type: 'string', description: 'The UTC day, YYYY-MM-DD.' },
          requests: { type: 'integer', description: 'Verified protected-resource requests.' },
          failures: {
            type: 'object',
            additionalProperties: { type: 'integer' },
            description: 'Refused requests by oauth_problem.',
          },
          owners: { type: 'integer', description: 'Distinct owners acted for.' },
          lastUsedAt: { type: ['string', 'null'], format: 'date-time' },
        },
        required: ['day', 'requests', 'failures', 'owners', 'lastUsedAt'],
      },
    },
  },
  required: ['client', 'days'],
} as const;

export function registerClientUsage(
  scope: FastifyInstance,
  provider: Provider,
  params: object,
): void {
  scope.get(
    '/admin/clients/:key/usage',
    {
      ...actionConfig('read'),
      schema: operation(
        'A client’s usage',
        `Its use per UTC day, today last: ${DEFAULT_USAGE_DAYS} days unless \`days\` (1 to ${USAGE_RETENTION_DAYS}, the days kept).`,
        {
          params,
          querystring: {
            type: 'object',
            properties: {
              days: {
                type: 'string',
                pattern: '^[0-9]{1,3}$',
                description: `Days, today last: 1 to ${USAGE_RETENTION_DAYS} (default ${DEFAULT_USAGE_DAYS}).`,
              },
            },
            additionalProperties: false,
          },
          response: { 200: json('Its days.', usageSchema), ...problems(400, 404) },
        },
      ),
    },
    async (request, reply) => {
      const { key } = request.params as { key: string };
      const asked = (request.query as { days?: string }).days;
      const days = asked === undefined ? DEFAULT_USAGE_DAYS : Number(asked);
      if (days < 1 || days > USAGE_RETENTION_DAYS) {
        throw new InputError('days', `days is a whole number from 1 to ${USAGE_RETENTION_DAYS}.`);
      }
      await provider.clients.get(key);
      const used = await provider.usage.days(key, days);
      return reply.send({
        client: key,
        days: used.map((day) => ({
          ...day,
          lastUsedAt: isoOrNull(day.lastUsedAt),
        })),
      });
    },
  );
}
