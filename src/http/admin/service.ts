/**
 * The admin API's own state: `/admin/health` (the store answers, and this server's version),
 * `/admin/whoami` (the calling token's name, role and actions), and `/admin/keys`, the keys
 * sealing secrets at rest: rows under each key, and re-sealing them under the current key
 * (a new key is added with `latchkey keys rotate`, on the machine holding the key file).
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
  registerKeys(scope, provider);
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
      return reply.header('cache-control', 'no-store').send({ status: 'ok', version });
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
      return reply
        .header('cache-control', 'no-store')
        .send({ name: admin.name, role: admin.role, actions: actionsOf(admin.role) });
    },
  );
}

function registerKeys(scope: FastifyInstance, provider: Provider): void {
  const rows = {
    type: 'object',
    description: 'Secret rows per key id; the id "" counts secrets stored in clear.',
    additionalProperties: { type: 'integer' },
  } as const;

  scope.get(
    '/admin/keys',
    {
      config: { action: 'read' },
      schema: operation('Sealing keys status', 'How many stored secrets each key seals.', {
        response: {
          200: json('Rows per key.', {
            type: 'object',
            properties: { rows },
            required: ['rows'],
          }),
          ...problems(),
        },
      }),
    },
    async (_request, reply) => {
      const status = await provider.admin.keys.status();
      return reply.header('cache-control', 'no-store').send({ rows: status });
    },
  );

  scope.post(
    '/admin/keys/reseal',
    {
      config: { action: 'keys.reseal' },
      schema: operation(
        'Re-seal secrets',
        'Seals under the current key every secret in clear or under an older key, then answers the rows per key.',
        {
          response: {
            200: json('What was re-sealed.', {
              type: 'object',
              properties: { resealed: { type: 'integer' }, rows },
              required: ['resealed', 'rows'],
            }),
            ...problems(),
          },
        },
      ),
    },
    async (_request, reply) => {
      const resealed = await provider.admin.keys.reseal();
      const status = await provider.admin.keys.status();
      return reply.header('cache-control', 'no-store').send({ resealed, rows: status });
    },
  );
}
