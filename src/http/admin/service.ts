/**
 * The admin API's own state: `/admin/health` (the store answers, and this server's version),
 * and `/admin/whoami` (the calling token's name, role and actions). The sealing keys are
 * keys.ts's.
 */
import type { FastifyInstance } from 'fastify';
import { actionsOf, StoreUnavailableError, type Provider } from '../../provider/index.ts';
import { packageVersion } from '../openapi.ts';
import { adminOf } from './guard.ts';
import { json, operation, problems } from './route-parts.ts';

const health = {
  type: 'object',
  properties: {
    status: { const: 'ok' },
    version: { type: 'string' },
  },
  required: ['status', 'version'],
} as const;

export function registerAdminService(scope: FastifyInstance, provider: Provider): void {
  registerHealth(scope, provider);
  registerWhoami(scope);
}

function registerHealth(scope: FastifyInstance, provider: Provider): void {
  const version = packageVersion();

  scope.get(
    '/admin/health',
    {
      config: { action: 'read' },
      schema: operation(
        'Health and version',
        'The store answers (else 503), and this server’s version.',
        {
          response: {
            200: json('The store answers.', health),
            ...problems(),
          },
        },
      ),
    },
    async (_request, reply) => {
      if (!(await provider.ping())) throw new StoreUnavailableError('The store does not answer.');
      return reply.send({ status: 'ok', version });
    },
  );
}

function registerWhoami(scope: FastifyInstance): void {
  scope.get(
    '/admin/whoami',
    {
      config: { action: 'read' },
      schema: operation('The calling token', 'Its name, role, and the actions the role allows.', {
        response: {
          200: json('The caller.', {
            type: 'object',
            properties: {
              name: { type: 'string' },
              role: { enum: ['operator', 'auditor', 'support'] },
              actions: { type: 'array', items: { type: 'string' } },
            },
            required: ['name', 'role', 'actions'],
          }),
          ...problems(),
        },
      }),
    },
    async (request, reply) => {
      const admin = adminOf(request);
      return reply.send({ name: admin.name, role: admin.role, actions: actionsOf(admin.role) });
    },
  );
}
