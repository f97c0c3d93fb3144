/**
 * `GET /metrics` in the Prometheus text format ( docs/events.md lists
 * every metric). Each app has a registry of its own, so a process (a test run) can build many
 * apps; the process metrics (CPU, memory, event loop) are the process's and are kept once.
 * Who may read it: docs/decisions.md "Who may read /metrics" (metrics-access.ts).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { isOAuthError } from '../protocol/index.ts';
import type { Provider } from '../provider/index.ts';
import type { TransportSettings } from './incoming-request.ts';
import { createMetricsAccess } from './metrics-access.ts';
import type { MetricsOptions } from './metrics-access.ts';
import type { FlowPaths } from './options.ts';
import { TAGS } from './route-schemas.ts';
import { registerRequestMetrics } from './request-metrics.ts';

export type { MetricsOptions } from './metrics-access.ts';

let processRegistry: Registry | undefined;

/** Process-wide metrics, registered once however many apps the process builds. */
function processMetrics(): Registry {
  if (processRegistry === undefined) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export interface MetricsContext {
  readonly provider: Provider;
  readonly paths: FlowPaths;
  readonly transport: TransportSettings;
  readonly options?: MetricsOptions | undefined;
}

/** Adds the hooks that count every request (call before registering routes) and the route. */
export function registerMetrics(app: FastifyInstance, context: MetricsContext): Registry {
  const { provider, paths } = context;
  const options = context.options ?? {};
  const registry = new Registry();
  const registers = [registry];

  const requests = registerRequestMetrics(registers);
  const failures = new Counter({
    name: 'latchkey_verification_failures_total',
    help: 'Requests refused with an oauth_problem, by problem.',
    labelNames: ['problem'] as const,
    registers,
  });
  const issued = new Counter({
    name: 'latchkey_credentials_issued_total',
    help: 'Credentials issued by the flow endpoints: temporary (§2.1) and token (§2.3).',
    labelNames: ['kind'] as const,
    registers,
  });
  const revoked = new Counter({
    name: 'latchkey_tokens_revoked_total',
    help: 'Token credentials revoked through this instance.',
    registers,
  });
  const upkeepFailures = new Counter({
    name: 'latchkey_maintenance_failures_total',
    help: 'Rounds of periodic upkeep (last-use writes, purges) that failed.',
    registers,
  });
  for (const kind of ['temporary', 'token']) issued.inc({ kind }, 0);
  revoked.inc(0);

  registerNonceSampling(app, registers, provider, options.nonceSampleMs ?? 15_000);
  registerCacheMetrics(registers, provider);

  const endpointOf = (request: FastifyRequest) => request.routeOptions.url ?? 'unmatched';
  // Callback hooks, not async ones: no promise per request on the hot path.
  app.addHook('onError', function countProblem(_request, _reply, error, done) {
    if (isOAuthError(error)) failures.inc({ problem: error.problem });
    done();
  });
  app.addHook('onResponse', function countRequest(request, reply, done) {
    const endpoint = endpointOf(request);
    const status = reply.statusCode;
    requests.record(endpoint, status, reply.elapsedTime / 1000);
    if (status === 200 && endpoint === paths.requestToken) issued.inc({ kind: 'temporary' });
    if (status === 200 && endpoint === paths.accessToken) issued.inc({ kind: 'token' });
    done();
  });

  const onToken = () => revoked.inc();
  const onGrant = (event: { count?: number }) => revoked.inc(event.count ?? 1);
  const onUpkeepFailure = (error: unknown) => {
    upkeepFailures.inc();
    // The message only: a store error never carries a secret, but a stack adds nothing here.
    app.log.warn(
      { err: error instanceof Error ? error.message : String(error) },
      'maintenance failed',
    );
  };
  provider.events
    .on('token.revoked', onToken)
    .on('grant.revoked', onGrant)
    .on('error.maintenance', onUpkeepFailure);

  app.addHook('onClose', async function stopCounting() {
    provider.events
      .off('token.revoked', onToken)
      .off('grant.revoked', onGrant)
      .off('error.maintenance', onUpkeepFailure);
  });

  registerMetricsRoute(app, registry, createMetricsAccess(options, context.transport));
  return registry;
}

/** The nonce store's size as a gauge, sampled every `intervalMs` from the app's start. */
function registerNonceSampling(
  app: FastifyInstance,
  registers: Registry[],
  provider: Provider,
  intervalMs: number,
): void {
  let nonceEntries: number | undefined;
  new Gauge({
    name: 'latchkey_nonce_store_entries',
    help: 'Live nonces in the nonce store, as last sampled (not on every scrape).',
    registers,
    collect() {
      if (nonceEntries !== undefined) this.set(nonceEntries);
    },
  });
  // The nonce count may scan the store (COUNT(*), or a SCARD per second in Redis): sampled.
  let sampler: NodeJS.Timeout | undefined;
  const sample = () => {
    provider.nonceCount().then(
      (size) => {
        nonceEntries = size;
      },
      () => undefined, // an outage shows in /readyz and the 503 counts; keep the last value
    );
  };
  app.addHook('onReady', async function startSampling() {
    sample();
    sampler = setInterval(sample, intervalMs);
    sampler.unref();
  });
  app.addHook('onClose', async function stopSampling() {
    clearInterval(sampler);
  });
}

/** `GET /metrics`, for the peers `allowed` lets read it; a 404 for the others. */
function registerMetricsRoute(
  app: FastifyInstance,
  registry: Registry,
  allowed: (request: FastifyRequest) => boolean,
): void {
  const schema = {
    tags: [TAGS.operations],
    summary: 'Prometheus metrics',
    description:
      'Counters and gauges in the Prometheus text format (docs/events.md). Only for the peers `metrics` allows (loopback by default); others get 404.',
    response: {
      200: {
        description: 'The metrics.',
        content: { 'text/plain': { schema: { type: 'string' } } },
      },
      404: {
        description: 'Not found for this peer.',
        content: { 'text/plain': { schema: { type: 'string' } } },
      },
    },
  };
  app.get('/metrics', { logLevel: 'debug', schema }, async function reportMetrics(request, reply) {
    if (!allowed(request)) return reply.callNotFound();
    const text = (await registry.metrics()) + (await processMetrics().metrics());
    return reply
      .header('content-type', registry.contentType)
      .header('cache-control', 'no-store')
      .send(text);
  });
}

/** Hit ratio of the per-instance cache (src/store/cached.ts), when the store has one. */
function registerCacheMetrics(registers: Registry[], provider: Provider): void {
  const counted = {
    clients: { hits: 0, misses: 0 },
    tokens: { hits: 0, misses: 0 },
    owners: { hits: 0, misses: 0 },
  };
  new Counter({
    name: 'latchkey_cache_lookups_total',
    help: 'Client, token and owner lookups, answered by the cache (hit) or the store (miss).',
    labelNames: ['cache', 'result'] as const,
    registers,
    collect() {
      const report = provider.cacheReport();
      if (report === undefined) return;
      for (const cache of ['clients', 'tokens', 'owners'] as const) {
        const now = report[cache];
        this.inc({ cache, result: 'hit' }, now.hits - counted[cache].hits);
        this.inc({ cache, result: 'miss' }, now.misses - counted[cache].misses);
        counted[cache] = { hits: now.hits, misses: now.misses };
      }
    },
  });
  new Gauge({
    name: 'latchkey_cache_hit_ratio',
    help: 'Share of lookups the cache answered since start (0 before any lookup).',
    labelNames: ['cache'] as const,
    registers,
    collect() {
      const report = provider.cacheReport();
      if (report === undefined) return;
      for (const cache of ['clients', 'tokens', 'owners'] as const) {
        const { hits, misses } = report[cache];
        this.set({ cache }, hits + misses === 0 ? 0 : hits / (hits + misses));
      }
    },
  });
}
