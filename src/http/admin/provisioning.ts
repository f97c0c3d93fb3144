/**
 * What an operator provisions through the admin API, as `latchkey users add`, `users passwd`
 * and `tokens issue` do on the database host: a local account (`POST /admin/owners`), its
 * password (`POST /admin/owners/{id}/password`, which signs it out everywhere), and token
 * credentials for an owner and a client without the flow (`POST /admin/tokens`, the secret in
 * that answer only). Passwords and secrets are never echoed, logged or audited.
 */
import type { FastifyInstance } from 'fastify';
import type { Provider } from '../../provider/index.ts';
import { etagHeader, etagOf, json, operation, pathParams, problems } from './route-parts.ts';
import { ownerSchema, ownerView, tokenSchema, tokenView } from './views.ts';

const password = { type: 'string', minLength: 1, maxLength: 1000 } as const;

const issuedSchema = {
  ...tokenSchema,
  properties: {
    ...tokenSchema.properties,
    secret: { type: 'string', description: 'The token secret, shown this once.' },
  },
};

export function registerAdminProvisioning(scope: FastifyInstance, provider: Provider): void {
  registerOwnerProvisioning(scope, provider);
  registerTokenIssue(scope, provider);
}

function registerOwnerProvisioning(scope: FastifyInstance, provider: Provider): void {
  scope.post(
    '/admin/owners',
    {
      config: { action: 'owners.write' },
      schema: operation(
        'Create a local account',
        'A resource owner who signs in on Latchkey’s page with this username and password.',
        {
          body: {
            type: 'object',
            properties: { username: { type: 'string', maxLength: 200 }, password },
            required: ['username', 'password'],
            additionalProperties: false,
          },
          response: {
            201: json('The owner.', ownerSchema, etagHeader),
            ...problems(400, 413, 415),
          },
        },
      ),
    },
    async (request, reply) => {
      const body = request.body as { username: string; password: string };
      const view = ownerView(await provider.owners.create(body.username, body.password));
      return reply
        .code(201)
        .header('etag', etagOf(view))
        .header('location', `/admin/owners/${encodeURIComponent(view.id)}`)
        .send(view);
    },
  );

  scope.post(
    '/admin/owners/:id/password',
    {
      config: { action: 'owners.write' },
      schema: operation(
        'Set an account’s password',
        'A local account’s new password; every browser it is signed in on is signed out.',
        {
          params: pathParams('id'),
          body: {
            type: 'object',
            properties: { password },
            required: ['password'],
            additionalProperties: false,
          },
          response: {
            204: { description: 'Set.', type: 'null' },
            ...problems(400, 404, 413, 415),
          },
        },
      ),
    },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      const owner = await provider.admin.owner(id);
      const { password: chosen } = request.body as { password: string };
      // Only a local account has a username and a password (owners.ts).
      await provider.owners.setPassword(owner.username ?? '', chosen);
      return reply.code(204).send();
    },
  );
}

function registerTokenIssue(scope: FastifyInstance, provider: Provider): void {
  scope.post(
    '/admin/tokens',
    {
      config: { action: 'tokens.issue' },
      schema: operation(
        'Issue token credentials',
        'Token credentials for an owner and a client without the flow; the secret is in this answer only. The scope defaults to the default scope, the lifetime to the server’s tokenLifetimeSeconds.',
        {
          body: {
            type: 'object',
            properties: {
              client: { type: 'string', minLength: 1, maxLength: 200 },
              owner: { type: 'string', minLength: 1, maxLength: 200 },
              scope: { type: 'string', maxLength: 2000 },
              lifetime: { type: ['integer', 'null'], minimum: 1, maximum: 3_153_600_000 },
              token: { type: 'string', maxLength: 200 },
              secret: { type: 'string', maxLength: 200 },
            },
            required: ['client', 'owner'],
            additionalProperties: false,
          },
          response: {
            201: json('The token credentials, with the secret.', issuedSchema),
            ...problems(400, 404, 413, 415),
          },
        },
      ),
    },
    async (request, reply) => {
      const body = request.body as {
        client: string;
        owner: string;
        scope?: string;
        lifetime?: number | null;
        token?: string;
        secret?: string;
      };
      const owner = await provider.admin.owner(body.owner);
      const issued = await provider.tokens.issue({
        clientKey: body.client,
        ownerId: owner.id,
        scope: body.scope,
        lifetime: body.lifetime,
        token: body.token,
        secret: body.secret,
      });
      return reply
        .code(201)
        .header('location', `/admin/tokens/${encodeURIComponent(issued.token)}`)
        .send({ ...tokenView(issued, provider.now()), secret: issued.secret });
    },
  );
}
