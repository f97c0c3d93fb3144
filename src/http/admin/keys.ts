/**
 * `/admin/keys`: the keys sealing the secrets at rest (docs/security.md "Secrets at rest"), as
 * the server holds them: where they come from, the current one, the rows under each, the
 * unused and the missing; re-sealing every secret under the current key; and rotating the
 * server's key file (a new current key, then a re-seal), what `latchkey keys` does on the
 * database host.
 */
import type { FastifyInstance } from 'fastify';
import type { KeyReport, Provider } from '../../provider/index.ts';
import { json, operation, problems } from './route-parts.ts';

const ids = { type: 'array', items: { type: 'string' } } as const;

const report = {
  source: {
    enum: ['setting', 'file', 'beside-database', 'none'],
    description:
      'LATCHKEY_SECRET_KEY, a key file (secretKeyFile, or beside the SQLite database), or none.',
  },
  keyFile: { type: ['string', 'null'], description: 'The key file on the server, if any.' },
  current: { type: ['string', 'null'], description: 'The id of the key sealing new secrets.' },
  rows: {
    type: 'object',
    description: 'Secret rows per key id; the id "" counts secrets stored in clear.',
    additionalProperties: { type: 'integer' },
  },
  unused: { ...ids, description: 'Configured keys no row is sealed under (removable).' },
  missing: { ...ids, description: 'Keys rows are sealed under that are not configured.' },
} as const;

const reportFields = Object.keys(report);

const reportSchema = (more: Record<string, object> = {}) => ({
  type: 'object',
  properties: { ...more, ...report },
  required: [...Object.keys(more), ...reportFields],
});

/** The report's fields in the order `latchkey keys status --json` prints them. */
const reportView = (keys: KeyReport) => ({
  source: keys.source,
  keyFile: keys.keyFile,
  current: keys.current,
  rows: keys.rows,
  unused: keys.unused,
  missing: keys.missing,
});

export function registerAdminKeys(scope: FastifyInstance, provider: Provider): void {
  const keys = provider.admin.keys;

  scope.get(
    '/admin/keys',
    {
      config: { action: 'read' },
      schema: operation(
        'Sealing keys status',
        'Where the keys come from, the current one, and how many stored secrets each key seals.',
        { response: { 200: json('The keys.', reportSchema()), ...problems() } },
      ),
    },
    async (_request, reply) => reply.send(reportView(await keys.report())),
  );

  scope.post(
    '/admin/keys/reseal',
    {
      config: { action: 'keys.reseal' },
      schema: operation(
        'Re-seal secrets',
        'Seals under the current key every secret in clear or under an older key, then answers the keys.',
        {
          response: {
            200: json('What was re-sealed.', reportSchema({ resealed: { type: 'integer' } })),
            ...problems(),
          },
        },
      ),
    },
    async (_request, reply) => {
      const resealed = await keys.reseal();
      const view = reportView(await keys.report());
      return reply.send({ resealed, ...view });
    },
  );

  scope.post(
    '/admin/keys/rotate',
    {
      config: { action: 'keys.rotate' },
      schema: operation(
        'Rotate the key file',
        'Adds a new current key to the server’s key file (400 when the keys are not in one), re-seals every secret under it, then answers the keys. Back up the key file afterwards.',
        {
          response: {
            200: json(
              'The new key and what was re-sealed.',
              reportSchema({ previous: { type: 'string' }, resealed: { type: 'integer' } }),
            ),
            ...problems(400),
          },
        },
      ),
    },
    async (_request, reply) => {
      const rotated = await keys.rotate();
      return reply.send({
        ...reportView(rotated.report),
        previous: rotated.previous,
        resealed: rotated.resealed,
      });
    },
  );
}
