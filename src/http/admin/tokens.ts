/**
 * `/admin/tokens` and `/admin/grants`: token credentials by client or owner (never their
 * secrets), grants as (owner, client) pairs with usable tokens, and revocation of one token,
 * of one grant, or of every token of a client or an owner. Revocation is obeyed from the next
 * request on, on every instance.
 */
import type { FastifyInstance } from 'fastify';
import type { Provider, TokenStatus } from '../../provider/index.ts';
import { json, operation, pageAnswer, pageQuery, pageRequestOf, problems } from './route-parts.ts';
import { grantSchema, grantView, tokenSchema, tokenView } from './views.ts';

const reference = { type: 'string', minLength: 1, maxLength: 200 } as const;
const revokedCount = {
  type: 'object',
  properties: { revoked: { type: 'integer', description: 'Tokens this call revoked.' } },
  required: ['revoked'],
} as const;

export function registerAdminTokens(scope: FastifyInstance, provider: Provider): void {
  registerTokenReads(scope, provider);
  registerTokenRevocation(scope, provider);
  registerGrants(scope, provider);
}

function registerTokenReads(scope: FastifyInstance, provider: Provider): void {
  const { admin } = provider;

  scope.get(
    '/admin/tokens',
    {
      config: { action: 'read' },
      schema: operation(
        'List token credentials',
        'Tokens in token order, a page at a time, of a client, an owner (by id), or both; filtered by status.',
        {
          querystring: {
            type: 'object',
            properties: {
              ...pageQuery,
              client: reference,
              owner: reference,
              status: { enum: ['active', 'expired', 'revoked'] },
            },
            additionalProperties: false,
          },
          response: { 200: json('A page of tokens.', pageAnswer(tokenSchema)), ...problems(400) },
        },
      ),
    },
    async (request, reply) => {
      const query = request.query as {
        cursor?: string;
        limit?: string;
        client?: string;
        owner?: string;
        status?: TokenStatus;
      };
      const page = await admin.tokenCredentials({
        ...pageRequestOf(query),
        clientKey: query.client,
        ownerId: query.owner,
        status: query.status,
      });
      const at = provider.now();
      return reply.send({
        items: page.items.map((t) => tokenView(t, at)),
        next: page.next ?? null,
      });
    },
  );

  scope.get(
    '/admin/tokens/:token',
    {
      config: { action: 'read' },
      schema: operation('Read a token credential', 'The token, never its secret.', {
        params: { type: 'object', properties: { token: reference }, required: ['token'] },
        response: { 200: json('The token.', tokenSchema), ...problems(404) },
      }),
    },
    async (request, reply) => {
      const { token } = request.params as { token: string };
      const found = await admin.tokenCredential(token);
      return reply.send(tokenView(found, provider.now()));
    },
  );
}

function registerTokenRevocation(scope: FastifyInstance, provider: Provider): void {
  const { admin } = provider;

  scope.post(
    '/admin/tokens/:token/revoke',
    {
      config: { action: 'tokens.revoke' },
      schema: operation('Revoke a token', 'Refused from its next request on.', {
        params: { type: 'object', properties: { token: reference }, required: ['token'] },
        response: {
          200: json('How many this call revoked: 1, or 0 when it already was.', revokedCount),
          ...problems(404),
        },
      }),
    },
    async (request, reply) => {
      const { token } = request.params as { token: string };
      const revoked = await provider.tokens.revoke(token);
      return reply.send({ revoked: revoked ? 1 : 0 });
    },
  );

  scope.post(
    '/admin/tokens/revoke',
    {
      config: { action: 'tokens.revoke' },
      schema: operation(
        'Revoke every token of a client or an owner',
        'Every usable token of the client, of the owner (by id), or of the owner for the client.',
        {
          body: {
            type: 'object',
            properties: { client: reference, owner: reference },
            additionalProperties: false,
            minProperties: 1,
          },
          response: {
            200: json('How many were revoked.', revokedCount),
            ...problems(400, 413, 415),
          },
        },
      ),
    },
    async (request, reply) => {
      const body = request.body as { client?: string; owner?: string };
      const revoked = await admin.revokeTokens({ clientKey: body.client, ownerId: body.owner });
      return reply.send({ revoked });
    },
  );
}

function registerGrants(scope: FastifyInstance, provider: Provider): void {
  const { admin } = provider;

  scope.get(
    '/admin/grants',
    {
      config: { action: 'read' },
      schema: operation(
        'List grants',
        'The (owner, client) pairs with a usable token, of a client, an owner (by id), or all; a page at a time.',
        {
          querystring: {
            type: 'object',
            properties: { ...pageQuery, client: reference, owner: reference },
            additionalProperties: false,
          },
          response: { 200: json('A page of grants.', pageAnswer(grantSchema)), ...problems(400) },
        },
      ),
    },
    async (request, reply) => {
      const query = request.query as {
        cursor?: string;
        limit?: string;
        client?: string;
        owner?: string;
      };
      const page = await admin.grants({
        ...pageRequestOf(query),
        ...(query.client === undefined ? {} : { clientKey: query.client }),
        ...(query.owner === undefined ? {} : { ownerId: query.owner }),
      });
      return reply.send({ items: page.items.map(grantView), next: page.next ?? null });
    },
  );

  scope.post(
    '/admin/grants/revoke',
    {
      config: { action: 'tokens.revoke' },
      schema: operation(
        'Revoke a grant',
        'Every live token of the owner for the client, as the owner’s own "Revoke" on Connected apps.',
        {
          body: {
            type: 'object',
            properties: { client: reference, owner: reference },
            required: ['client', 'owner'],
            additionalProperties: false,
          },
          response: {
            200: json('How many were revoked.', revokedCount),
            ...problems(400, 413, 415),
          },
        },
      ),
    },
    async (request, reply) => {
      const body = request.body as { client: string; owner: string };
      const revoked = await provider.tokens.revokeGrant(body.owner, body.client);
      return reply.send({ revoked });
    },
  );
}
