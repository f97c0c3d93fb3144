/**
 * `/admin/audit`: the audit trail queried with the CLI's filters (`latchkey audit`: since,
 * client, owner, limit), newest first, and `/admin/audit/stream`, the events as they are
 * recorded, as Server-Sent Events (one `audit` event per entry, a comment every 15 seconds
 * to keep proxies from closing an idle stream), at most MAX_STREAMS at once. Streams end when
 * the server closes.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { AuditEvent, Provider } from '../../provider/index.ts';
import { InputError } from '../../provider/index.ts';
import { AdminProblem } from './problem.ts';
import { json, operation, problems } from './route-parts.ts';
import { eventSchema, eventView } from './views.ts';

const HEARTBEAT_MS = 15_000;
/** Audit streams one server keeps open at once; more are refused with 503. */
const MAX_STREAMS = 100;
/** Events one query answers when no limit is given (as `latchkey audit`), and at most. */
const MAX_EVENTS = 1000;

const reference = { type: 'string', minLength: 1, maxLength: 200 } as const;

/** An ISO 8601 time, or a duration back from now: `30m`, `12h`, `7d` (as `latchkey audit`). */
function sinceOf(value: string, now: number): number {
  const relative = /^(\d{1,6})([mhd])$/.exec(value);
  if (relative !== null) {
    const unit = { m: 60_000, h: 3_600_000, d: 86_400_000 }[relative[2] as 'm' | 'h' | 'd'];
    return now - Number(relative[1]) * unit;
  }
  const at = Date.parse(value);
  if (Number.isNaN(at))
    throw new InputError('since', 'since is an ISO 8601 time, or 30m, 12h, 7d.');
  return at;
}

export function registerAdminAudit(scope: FastifyInstance, provider: Provider): void {
  registerAuditList(scope, provider);
  registerAuditStream(scope, provider);
}

function registerAuditList(scope: FastifyInstance, provider: Provider): void {
  scope.get(
    '/admin/audit',
    {
      config: { action: 'read' },
      schema: operation(
        'Query the audit trail',
        'Events newest first, filtered as `latchkey audit` filters them.',
        {
          querystring: {
            type: 'object',
            properties: {
              since: {
                type: 'string',
                maxLength: 64,
                description: 'Only events from this time: ISO 8601, or 30m, 12h, 7d ago.',
              },
              client: reference,
              owner: { ...reference, description: 'A username, owner id or subject.' },
              limit: {
                type: 'string',
                pattern: '^[0-9]{1,4}$',
                description: `At most this many, 1 to ${MAX_EVENTS} (default ${MAX_EVENTS}).`,
              },
            },
            additionalProperties: false,
          },
          response: {
            200: json('The events.', {
              type: 'object',
              properties: { items: { type: 'array', items: eventSchema } },
              required: ['items'],
            }),
            ...problems(400, 404),
          },
        },
      ),
    },
    async (request, reply) => {
      const query = request.query as {
        since?: string;
        client?: string;
        owner?: string;
        limit?: string;
      };
      const limit = query.limit === undefined ? MAX_EVENTS : Number(query.limit);
      if (limit < 1 || limit > MAX_EVENTS) {
        throw new InputError('limit', `limit is 1 to ${MAX_EVENTS}.`);
      }
      const ownerId =
        query.owner === undefined ? undefined : (await provider.owners.resolve(query.owner)).id;
      const events = await provider.audit.list({
        since: query.since === undefined ? undefined : sinceOf(query.since, provider.now()),
        clientKey: query.client,
        ownerId,
        limit,
      });
      return reply.send({ items: events.map(eventView) });
    },
  );

  /** Each open stream and what it follows; one listener on the provider feeds them all. */
}

function registerAuditStream(scope: FastifyInstance, provider: Provider): void {
  const streams = new Map<
    ServerResponse,
    { readonly client: string | undefined; readonly owner: string | undefined }
  >();
  const fanOut = (entry: Omit<AuditEvent, 'id'>) => {
    if (streams.size === 0) return;
    const message = `event: audit\ndata: ${JSON.stringify(eventView(entry))}\n\n`;
    for (const [stream, follows] of streams) {
      if (follows.client !== undefined && entry.clientKey !== follows.client) continue;
      if (follows.owner !== undefined && entry.ownerId !== follows.owner) continue;
      stream.write(message);
    }
  };
  provider.events.on('audit', fanOut);
  // Open streams would keep the server from closing: they end first.
  scope.addHook('preClose', async () => {
    provider.events.off('audit', fanOut);
    for (const stream of streams.keys()) stream.end();
  });

  scope.get(
    '/admin/audit/stream',
    {
      config: { action: 'read' },
      schema: operation(
        'Follow the audit trail',
        'Server-Sent Events: each event recorded from now on, as `event: audit` with the event as JSON `data`, filtered by client and owner id.',
        {
          querystring: {
            type: 'object',
            properties: { client: reference, owner: { ...reference, description: 'An owner id.' } },
            additionalProperties: false,
          },
          response: {
            200: {
              description: 'The stream, open until the caller or the server closes it.',
              content: { 'text/event-stream': { schema: { type: 'string' } } },
            },
            ...problems(400),
          },
        },
      ),
    },
    async (request, reply) => {
      const query = request.query as { client?: string; owner?: string };
      if (streams.size >= MAX_STREAMS) {
        throw new AdminProblem(503, 'Too many audit streams are open; try again later.');
      }
      reply.hijack();
      const stream = reply.raw;
      stream.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-accel-buffering': 'no',
      });
      stream.write(': the audit trail as it is recorded\n\n');
      const heartbeat = setInterval(() => stream.write(': keep-alive\n\n'), HEARTBEAT_MS);
      heartbeat.unref();
      streams.set(stream, { client: query.client, owner: query.owner });
      stream.once('close', () => {
        clearInterval(heartbeat);
        streams.delete(stream);
      });
    },
  );
}
