/**
 * `/admin/clients`: list (filters, pages), read, register, change, disable and enable, rotate
 * the secret, delete. Changes go through the provider's client registry, the same rules as
 * the CLI and the developer portal.
 */
import type { FastifyInstance } from 'fastify';
import type { Client, ClientChanges, Provider } from '../../provider/index.ts';
import { MAX_OVERLAP_SECONDS } from '../../provider/index.ts';
import type { AdminRouteConfig } from './guard.ts';
import {
  checkIfMatch,
  etagHeader,
  etagOf,
  json,
  operation,
  pageAnswer,
  pageQuery,
  pageRequestOf,
  pathParams,
  problems,
  sendWithEtag,
  actionConfig,
} from './route-parts.ts';
import { clientSchema, clientView } from './views.ts';
import { registerClientOverlaps } from './client-overlaps.ts';
import { registerClientUsage } from './client-usage.ts';

const keyParams = pathParams('key');

const text = (maxLength: number) => ({ type: 'string', maxLength }) as const;
const list = { type: 'array', maxItems: 50, items: text(2000) } as const;
const perMinute = { type: ['integer', 'null'], minimum: 1, maximum: 1_000_000 } as const;

/** What may be registered or changed; unknown fields are refused, not dropped. */
const fields = {
  name: text(200),
  description: text(2000),
  website: { type: ['string', 'null'], maxLength: 2000 },
  callbacks: list,
  signatureMethods: list,
  publicKey: { type: ['string', 'null'], maxLength: 10_000 },
  constrainedDevice: { type: 'boolean' },
  sessionExtension: { type: 'boolean' },
  rememberConsent: { type: 'string', enum: ['never', 'same-scope'] },
  tokenResponseIdentity: { type: 'boolean' },
  scopes: {
    type: 'array',
    maxItems: 50,
    items: text(200),
    description:
      "The client's scope ceiling: scopes of this server it may ask for and use; [] for none (any scope). Lowering it narrows tokens already issued.",
  },
} as const;

/** How long a replaced secret or public key stays valid (docs/decisions.md "Rotation with overlap"). */
const overlapSeconds = {
  type: 'integer',
  minimum: 0,
  maximum: MAX_OVERLAP_SECONDS,
  description:
    'Seconds the previous secret (or public key) stays valid beside the new one; 0, the default, ends it at once.',
} as const;

const changeFields = {
  ...fields,
  verified: { type: 'boolean' },
  requestsPerMinute: perMinute,
  failuresPerMinute: perMinute,
  overlapSeconds,
} as const;

const withSecret = {
  ...clientSchema,
  properties: {
    ...clientSchema.properties,
    secret: { type: 'string', description: 'Shown this once.' },
  },
};

interface ListQuery {
  cursor?: string;
  limit?: string;
  disabled?: 'true' | 'false';
  developer?: string;
  q?: string;
}

type Registration = {
  name: string;
  description?: string;
  website?: string | null;
  callbacks?: string[];
  signatureMethods?: string[];
  publicKey?: string | null;
  constrainedDevice?: boolean;
  sessionExtension?: boolean;
  rememberConsent?: 'never' | 'same-scope';
  tokenResponseIdentity?: boolean;
  scopes?: string[];
};

export function registerAdminClients(scope: FastifyInstance, provider: Provider): void {
  registerClientListAndAdd(scope, provider);
  registerClientReadAndChange(scope, provider);
  registerClientActions(scope, provider);
  registerClientOverlaps(scope, provider, keyParams);
  registerClientUsage(scope, provider, keyParams);
}

function registerClientListAndAdd(scope: FastifyInstance, provider: Provider): void {
  const { clients } = provider;

  scope.get(
    '/admin/clients',
    {
      ...actionConfig('read'),
      schema: operation(
        'List clients',
        'Clients in key order, a page at a time; filtered by status, developer, or text in the name or key.',
        {
          querystring: {
            type: 'object',
            properties: {
              ...pageQuery,
              disabled: { enum: ['true', 'false'] },
              developer: { type: 'string', maxLength: 200 },
              q: { type: 'string', maxLength: 200 },
            },
            additionalProperties: false,
          },
          response: {
            200: json('A page of clients.', pageAnswer(clientSchema)),
            ...problems(400),
          },
        },
      ),
    },
    async (request, reply) => {
      const query = request.query as ListQuery;
      const page = await provider.admin.clients({
        ...pageRequestOf(query),
        disabled: query.disabled === undefined ? undefined : query.disabled === 'true',
        developerId: query.developer,
        search: query.q,
      });
      return reply.send({ items: page.items.map(clientView), next: page.next ?? null });
    },
  );

  scope.post(
    '/admin/clients',
    {
      ...actionConfig('clients.write'),
      schema: operation(
        'Register a client',
        'A new client; its secret is in this answer only (an RSA-only client has none).',
        {
          body: {
            type: 'object',
            properties: fields,
            required: ['name'],
            additionalProperties: false,
          },
          response: {
            201: json('The client, with its secret.', withSecret, etagHeader),
            ...problems(400, 413, 415),
          },
        },
      ),
    },
    async (request, reply) => {
      const body = request.body as Registration;
      const client = await clients.register({
        ...body,
        website: body.website ?? undefined,
        publicKey: body.publicKey ?? undefined,
      });
      const view = clientView(client);
      return reply
        .code(201)
        .header('etag', etagOf(view))
        .header('location', `/admin/clients/${encodeURIComponent(client.key)}`)
        .send({ ...view, secret: client.secret });
    },
  );
}

function registerClientReadAndChange(scope: FastifyInstance, provider: Provider): void {
  const { clients } = provider;

  scope.get(
    '/admin/clients/:key',
    {
      ...actionConfig('read'),
      schema: operation('Read a client', 'The client, never its secret, with its ETag.', {
        params: keyParams,
        response: { 200: json('The client.', clientSchema, etagHeader), ...problems(404) },
      }),
    },
    async (request, reply) => {
      const { key } = request.params as { key: string };
      return sendWithEtag(reply, clientView(await clients.get(key)));
    },
  );

  scope.patch(
    '/admin/clients/:key',
    {
      ...actionConfig('clients.write'),
      schema: operation(
        'Change a client',
        'Changes the fields given; `If-Match` with the ETag read is required. Obeyed from the next request on, on every instance.',
        {
          params: keyParams,
          headers: {
            type: 'object',
            properties: { 'if-match': { type: 'string', description: 'The ETag read.' } },
          },
          body: {
            type: 'object',
            properties: changeFields,
            additionalProperties: false,
            minProperties: 1,
          },
          response: {
            200: json('The client as changed.', clientSchema, etagHeader),
            ...problems(400, 404, 412, 413, 415, 428),
          },
        },
      ),
    },
    async (request, reply) => {
      const { key } = request.params as { key: string };
      checkIfMatch(request, clientView(await clients.get(key)), true);
      const { overlapSeconds, ...changes } = request.body as ClientChanges & {
        overlapSeconds?: number;
      };
      const changed = await clients.update(key, changes, { overlapSeconds });
      return sendWithEtag(reply, clientView(changed));
    },
  );
}

function registerClientActions(scope: FastifyInstance, provider: Provider): void {
  const { clients } = provider;

  const action = (
    path: string,
    routeAction: AdminRouteConfig['action'],
    summary: string,
    description: string,
    act: (
      key: string,
      body: unknown,
    ) => Promise<{ client: Client; shownOnce?: { secret: string } }>,
    body?: object,
  ) =>
    scope.post(
      `/admin/clients/:key/${path}`,
      {
        ...actionConfig(routeAction),
        schema: operation(summary, `${description} \`If-Match\` is checked when sent.`, {
          params: keyParams,
          ...(body === undefined ? {} : { body }),
          response: {
            200: json(
              'The client now.',
              routeAction === 'clients.rotate' ? withSecret : clientSchema,
              etagHeader,
            ),
            ...problems(...(body === undefined ? [] : [400]), 404, 412),
          },
        }),
      },
      async (request, reply) => {
        const { key } = request.params as { key: string };
        checkIfMatch(request, clientView(await clients.get(key)), false);
        const { client, shownOnce } = await act(key, request.body);
        const view = clientView(client);
        return reply.header('etag', etagOf(view)).send({ ...view, ...shownOnce });
      },
    );

  action(
    'disable',
    'clients.disable',
    'Disable a client',
    'Every request signed with its key is refused (401 consumer_key_rejected) until it is enabled; its tokens are kept.',
    async (key) => ({ client: await clients.setDisabled(key, true) }),
  );
  action(
    'enable',
    'clients.enable',
    'Enable a client',
    'Its key, and the tokens it kept, work again.',
    async (key) => ({ client: await clients.setDisabled(key, false) }),
  );
  action(
    'rotate-secret',
    'clients.rotate',
    'Rotate a client’s secret',
    'A new secret, in this answer only; the old one is refused from the next request on, or accepted beside it for `overlapSeconds` (the body may be left out).',
    async (key, body) => {
      const overlap = (body as { overlapSeconds?: number } | undefined)?.overlapSeconds;
      const client = await clients.rotateSecret(key, { overlapSeconds: overlap });
      return { client, shownOnce: { secret: client.secret } };
    },
    {
      type: ['object', 'null'],
      properties: { overlapSeconds },
      additionalProperties: false,
    },
  );

  scope.delete(
    '/admin/clients/:key',
    {
      ...actionConfig('clients.delete'),
      schema: operation(
        'Delete a client',
        'The client and every credential issued to it. `If-Match` is checked when sent.',
        {
          params: keyParams,
          response: { 204: { description: 'Deleted.', type: 'null' }, ...problems(404, 412) },
        },
      ),
    },
    async (request, reply) => {
      const { key } = request.params as { key: string };
      checkIfMatch(request, clientView(await clients.get(key)), false);
      await clients.remove(key);
      return reply.code(204).send();
    },
  );
}
