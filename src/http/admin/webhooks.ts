/**
 * `/admin/webhooks`: list (pages), add (the signing secret in that answer only), read, change
 * the events a hook receives or stop and resume it, remove; and the delivery log, newest
 * first, a page at a time, for one hook or all. Changes go through the provider's webhook
 * desk, the same rules as `latchkey webhooks`; the URL is checked against the addresses the
 * server's worker may reach (docs/webhooks.md).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type {
  Provider,
  WebhookChangeRequest,
  WebhookDelivery,
  WebhookSummary,
} from '../../provider/index.ts';
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
import { iso, isoOrNull } from './views.ts';

export function webhookView(hook: WebhookSummary) {
  return {
    id: hook.id,
    url: hook.url,
    events: hook.events,
    disabled: hook.disabledAt !== null,
    createdAt: iso(hook.createdAt),
    disabledAt: isoOrNull(hook.disabledAt),
  };
}

export function deliveryView(delivery: WebhookDelivery) {
  return {
    id: delivery.id,
    webhookId: delivery.webhookId,
    eventId: delivery.eventId,
    type: delivery.type,
    createdAt: iso(delivery.createdAt),
    attempts: delivery.attempts,
    lastStatus: delivery.lastStatus,
    lastError: delivery.lastError,
    nextAttemptAt: isoOrNull(delivery.nextAttemptAt),
    deliveredAt: isoOrNull(delivery.deliveredAt),
  };
}

const time = { type: 'string', format: 'date-time' } as const;
const timeOrNull = { type: ['string', 'null'] } as const;

const webhookSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    url: { type: 'string' },
    events: { type: 'array', items: { type: 'string' } },
    disabled: { type: 'boolean', description: 'Nothing is sent (disabled, or 410 Gone).' },
    createdAt: time,
    disabledAt: timeOrNull,
  },
  required: ['id', 'url', 'events', 'disabled', 'createdAt', 'disabledAt'],
} as const;

const withSecret = {
  ...webhookSchema,
  properties: {
    ...webhookSchema.properties,
    secret: { type: 'string', description: 'The signing secret, shown this once.' },
  },
};

const deliverySchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    webhookId: { type: 'string' },
    eventId: { type: 'string' },
    type: { type: 'string' },
    createdAt: time,
    attempts: { type: 'integer' },
    lastStatus: { type: ['integer', 'null'] },
    lastError: { type: ['string', 'null'] },
    nextAttemptAt: { ...timeOrNull, description: 'Null once delivered or given up.' },
    deliveredAt: timeOrNull,
  },
  required: [
    'id',
    'webhookId',
    'eventId',
    'type',
    'createdAt',
    'attempts',
    'lastStatus',
    'lastError',
    'nextAttemptAt',
    'deliveredAt',
  ],
} as const;

const eventList = {
  type: 'array',
  minItems: 1,
  maxItems: 50,
  items: { type: 'string', maxLength: 100 },
  description: 'Event types (`grant.created`…), or `*` for every one.',
} as const;

const idParams = pathParams('id');

export function registerAdminWebhooks(scope: FastifyInstance, provider: Provider): void {
  registerListAndAdd(scope, provider);
  registerReadAndChange(scope, provider);
  registerActions(scope, provider);
  registerDeliveries(scope, provider);
}

function registerListAndAdd(scope: FastifyInstance, provider: Provider): void {
  const { webhooks } = provider;

  scope.get(
    '/admin/webhooks',
    {
      ...actionConfig('read'),
      schema: operation(
        'List webhooks',
        'Webhooks in id order, a page at a time; never a secret.',
        {
          querystring: { type: 'object', properties: pageQuery, additionalProperties: false },
          response: {
            200: json('A page of webhooks.', pageAnswer(webhookSchema)),
            ...problems(400),
          },
        },
      ),
    },
    async (request, reply) => {
      const page = await webhooks.listPage(pageRequestOf(request.query as { limit?: string }));
      return reply.send({ items: page.items.map(webhookView), next: page.next ?? null });
    },
  );

  scope.post(
    '/admin/webhooks',
    {
      ...actionConfig('webhooks.write'),
      schema: operation(
        'Add a webhook',
        'A new webhook; its signing secret is in this answer only. A URL the server’s worker may not reach (a private address, unless allowed) is refused.',
        {
          body: {
            type: 'object',
            properties: {
              url: { type: 'string', minLength: 1, maxLength: 2000 },
              events: eventList,
            },
            required: ['url', 'events'],
            additionalProperties: false,
          },
          response: {
            201: json('The webhook, with its secret.', withSecret, etagHeader),
            ...problems(400, 413, 415),
          },
        },
      ),
    },
    async (request, reply) => {
      const body = request.body as { url: string; events: string[] };
      const { hook, secret } = await webhooks.add(body.url, body.events);
      const view = webhookView(hook);
      return reply
        .code(201)
        .header('etag', etagOf(view))
        .header('location', `/admin/webhooks/${encodeURIComponent(hook.id)}`)
        .send({ ...view, secret });
    },
  );
}

function registerReadAndChange(scope: FastifyInstance, provider: Provider): void {
  const { webhooks } = provider;
  const current = async (id: string) => webhookView(await webhooks.get(id));

  scope.get(
    '/admin/webhooks/:id',
    {
      ...actionConfig('read'),
      schema: operation('Read a webhook', 'The webhook, never its secret, with its ETag.', {
        params: idParams,
        response: { 200: json('The webhook.', webhookSchema, etagHeader), ...problems(404) },
      }),
    },
    async (request, reply) =>
      sendWithEtag(reply, await current((request.params as { id: string }).id)),
  );

  scope.patch(
    '/admin/webhooks/:id',
    {
      ...actionConfig('webhooks.write'),
      schema: operation(
        'Change a webhook',
        'Changes the events it receives, or stops (`disabled: true`) or resumes sending to it; `If-Match` with the ETag read is required.',
        {
          params: idParams,
          headers: {
            type: 'object',
            properties: { 'if-match': { type: 'string', description: 'The ETag read.' } },
          },
          body: {
            type: 'object',
            properties: { events: eventList, disabled: { type: 'boolean' } },
            additionalProperties: false,
            minProperties: 1,
          },
          response: {
            200: json('The webhook as changed.', webhookSchema, etagHeader),
            ...problems(400, 404, 412, 413, 415, 428),
          },
        },
      ),
    },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      checkIfMatch(request, await current(id), true);
      const changed = await webhooks.update(id, request.body as WebhookChangeRequest);
      return sendWithEtag(reply, webhookView(changed));
    },
  );
}

function registerActions(scope: FastifyInstance, provider: Provider): void {
  const { webhooks } = provider;
  const current = async (id: string) => webhookView(await webhooks.get(id));

  for (const [path, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const) {
    scope.post(
      `/admin/webhooks/:id/${path}`,
      {
        ...actionConfig('webhooks.write'),
        schema: operation(
          disabled ? 'Disable a webhook' : 'Enable a webhook',
          `${
            disabled
              ? 'Nothing more is queued for it or sent until it is enabled.'
              : 'It receives again, its waiting deliveries too (after a 410 Gone, or a disable).'
          } \`If-Match\` is checked when sent.`,
          {
            params: idParams,
            response: {
              200: json('The webhook now.', webhookSchema, etagHeader),
              ...problems(404, 412),
            },
          },
        ),
      },
      async (request, reply) => {
        const { id } = request.params as { id: string };
        checkIfMatch(request, await current(id), false);
        return sendWithEtag(reply, webhookView(await webhooks.update(id, { disabled })));
      },
    );
  }

  scope.delete(
    '/admin/webhooks/:id',
    {
      ...actionConfig('webhooks.write'),
      schema: operation(
        'Remove a webhook',
        'The webhook and its delivery log. `If-Match` is checked when sent.',
        {
          params: idParams,
          response: { 204: { description: 'Removed.', type: 'null' }, ...problems(404, 412) },
        },
      ),
    },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      checkIfMatch(request, await current(id), false);
      await webhooks.remove(id);
      return reply.code(204).send();
    },
  );
}

function registerDeliveries(scope: FastifyInstance, provider: Provider): void {
  const { webhooks } = provider;
  const answer = json('A page of deliveries, newest first.', pageAnswer(deliverySchema));
  const send = async (
    reply: FastifyReply,
    query: { cursor?: string; limit?: string },
    webhookId: string | undefined,
  ) => {
    const page = await webhooks.deliveryPage({ ...pageRequestOf(query), webhookId });
    return reply.send({ items: page.items.map(deliveryView), next: page.next ?? null });
  };

  scope.get(
    '/admin/webhooks/:id/deliveries',
    {
      ...actionConfig('read'),
      schema: operation(
        'A webhook’s deliveries',
        'Its delivery log, newest first, a page at a time: attempts, last status, next attempt.',
        {
          params: idParams,
          querystring: { type: 'object', properties: pageQuery, additionalProperties: false },
          response: { 200: answer, ...problems(400, 404) },
        },
      ),
    },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      await webhooks.get(id); // 404 for an unknown hook
      return send(reply, request.query as object, id);
    },
  );

  scope.get(
    '/admin/webhook-deliveries',
    {
      ...actionConfig('read'),
      schema: operation(
        'Every webhook’s deliveries',
        'The delivery log of every hook (or the one `webhook` names), newest first, a page at a time.',
        {
          querystring: {
            type: 'object',
            properties: { ...pageQuery, webhook: { type: 'string', minLength: 1, maxLength: 200 } },
            additionalProperties: false,
          },
          response: { 200: answer, ...problems(400) },
        },
      ),
    },
    async (request, reply) => {
      const query = request.query as { cursor?: string; limit?: string; webhook?: string };
      return send(reply, query, query.webhook);
    },
  );
}
