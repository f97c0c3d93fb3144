/**
 * Probes for a load balancer or orchestrator: `GET /healthz` says the
 * process is up and serving (200, no store call, so a database outage never gets a healthy
 * process restarted); `GET /readyz` says whether the stores answer (200, or 503 with
 * Retry-After so the balancer sends traffic elsewhere; 503 `draining` at once when the server
 * begins to close, http/drain.ts). Both are cheap, uncached, public, and
 * logged only at debug level since they are polled every few seconds.
 */
import type { FastifyInstance } from 'fastify';
/** What /readyz asks: whether the store's backing services answer. */
export interface Pingable {
  ping(): Promise<boolean>;
}
import { TAGS } from '../route-schemas.ts';
import { STORE_OUTAGE_RETRY_AFTER_SECONDS } from '../error-reply.ts';

const status = (value: string, description: string) => ({
  description,
  content: {
    'application/json': {
      schema: {
        type: 'object',
        properties: { status: { const: value } },
        required: ['status'],
      },
    },
  },
});

const liveSchema = {
  tags: [TAGS.operations],
  summary: 'Liveness probe',
  description: 'The process is up and serving; asks no backend.',
  response: { 200: status('ok', 'Up.') },
};

const readySchema = {
  tags: [TAGS.operations],
  summary: 'Readiness probe',
  description:
    'Whether the stores answer (within a bound) and the server is not closing: 200, or 503 with Retry-After.',
  response: {
    200: status('ready', 'The stores answer.'),
    503: {
      description: 'A store did not answer, or the server is closing; send traffic elsewhere.',
      content: {
        'application/json': {
          schema: {
            type: 'object',
            properties: { status: { enum: ['unavailable', 'draining'] } },
            required: ['status'],
          },
        },
      },
      headers: { 'retry-after': { type: 'string' } },
    },
  },
};

export interface HealthOptions {
  /** Longest wait for the stores' answer before /readyz says 503 (default 3000 ms). */
  readonly readyTimeoutMs?: number | undefined;
  /** True once the server began to close (http/drain.ts): /readyz then says 503 at once. */
  readonly isDraining?: (() => boolean) | undefined;
}

/** ping() with a bound of its own: a stalled backend makes /readyz 503, never a hang. */
async function pingWithin(store: Pingable, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([store.ping().catch(() => false), late]);
  } finally {
    clearTimeout(timer);
  }
}

export function registerHealthRoutes(
  app: FastifyInstance,
  store: Pingable,
  options: HealthOptions = {},
): void {
  const timeoutMs = options.readyTimeoutMs ?? 3000;
  const isDraining = options.isDraining ?? (() => false);

  app.get(
    '/healthz',
    { logLevel: 'debug', schema: liveSchema },
    async function reportLive(_request, reply) {
      return reply.header('cache-control', 'no-store').send({ status: 'ok' });
    },
  );

  app.get(
    '/readyz',
    { logLevel: 'debug', schema: readySchema },
    async function reportReady(_request, reply) {
      reply.header('cache-control', 'no-store');
      if (isDraining()) {
        return reply
          .code(503)
          .header('retry-after', String(STORE_OUTAGE_RETRY_AFTER_SECONDS))
          .send({ status: 'draining' });
      }
      if (await pingWithin(store, timeoutMs)) return reply.send({ status: 'ready' });
      return reply
        .code(503)
        .header('retry-after', String(STORE_OUTAGE_RETRY_AFTER_SECONDS))
        .send({ status: 'unavailable' });
    },
  );
}
