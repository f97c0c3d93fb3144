// The fault harness: the whole server (pages, gateway, OAuth routes) built on
// openStore, listening on loopback, with PostgreSQL and Redis each behind a loopback TCP proxy
// the test cuts, freezes and restores; seeded credentials; and a load of real HTTP requests of
// every kind, each recorded with its status, Retry-After and times, and bounded so that a hang
// shows as `hung` instead of stalling the run.
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { createSigningFetch } from '../../src/client/index.ts';
import type { ClientCredentials, TokenCredentials } from '../../src/client/index.ts';
import { createProvider } from '../../src/provider/index.ts';
import type { Provider } from '../../src/provider/index.ts';
import { buildServer } from '../../src/server.ts';
import { openStore } from '../../src/store/index.ts';
import type { Store } from '../../src/store/index.ts';
import { startEchoUpstream } from '../gateway/support.ts';
import type { EchoUpstream } from '../gateway/support.ts';
import { startProxy } from '../stores/support-faults.ts';
import type { Proxy } from '../stores/support-faults.ts';

export type Kind = 'resource' | 'temporary' | 'page' | 'gateway' | 'ready';
export const kinds: readonly Kind[] = ['resource', 'temporary', 'page', 'gateway', 'ready'];

export interface Answer {
  readonly kind: Kind;
  /** 0 when the request hung past the bound (or the connection failed). */
  readonly status: number;
  readonly retryAfter: string | null;
  readonly problem: string | null;
  readonly hung: boolean;
  readonly started: number;
  readonly ended: number;
}

export interface FaultWorld {
  readonly base: string;
  readonly postgres: Proxy;
  readonly redis: Proxy;
  readonly store: Store;
  readonly provider: Provider;
  readonly app: FastifyInstance;
  /** One request of this kind, over real HTTP. */
  send(kind: Kind): Promise<Answer>;
  close(): Promise<void>;
}

/** Longest a request may take before it counts as hung (the stores' bounds are ~2.5 s). */
export const HANG_MS = 8000;

export async function startFaultWorld(names: {
  schema: string;
  prefix: string;
}): Promise<FaultWorld> {
  const postgres = await startProxy(5432);
  const redis = await startProxy(6379);
  const upstream: EchoUpstream = await startEchoUpstream();
  const store = await openStore(`postgres://postgres@127.0.0.1:${postgres.port}/test`, {
    redis: `redis://127.0.0.1:${redis.port}`,
    schema: names.schema,
    redisPrefix: names.prefix,
  });
  const provider = createProvider({ store });
  const app = await buildServer({
    provider,
    maintenance: false,
    gateway: { upstream: upstream.url, rules: [{ path: '/photos/*', access: 'token' }] },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  const base = `http://127.0.0.1:${address.port}`;

  const registered = await provider.clients.register({
    name: 'Fault probe',
    callbacks: ['https://probe.example/ready'],
  });
  const owner = await provider.owners.create(`owner-${registered.key}`, 'a long password');
  const issued = await provider.tokens.issue({ clientKey: registered.key, ownerId: owner.id });
  const client: ClientCredentials = { key: registered.key, secret: registered.secret };
  const token: TokenCredentials = { token: issued.token, secret: issued.secret };
  const signed = createSigningFetch({ client, token });
  const clientOnly = createSigningFetch({ client });
  const temporary = await (
    await clientOnly(`${base}/oauth/request_token`, {
      method: 'POST',
      protocolParameters: { oauth_callback: 'oob' },
    })
  ).text();
  const temporaryToken = new URLSearchParams(temporary).get('oauth_token');
  if (temporaryToken === null) throw new Error(`no temporary credentials: ${temporary}`);

  const requests: Record<Kind, (signal: AbortSignal) => Promise<Response>> = {
    resource: (signal) => signed(`${base}/api/me`, { signal }),
    temporary: (signal) =>
      clientOnly(`${base}/oauth/request_token`, {
        method: 'POST',
        protocolParameters: { oauth_callback: 'oob' },
        signal,
      }),
    page: (signal) => fetch(`${base}/oauth/authorize?oauth_token=${temporaryToken}`, { signal }),
    gateway: (signal) => signed(`${base}/photos/1`, { signal }),
    ready: (signal) => fetch(`${base}/readyz`, { signal }),
  };

  return {
    base,
    postgres,
    redis,
    store,
    provider,
    app,
    async send(kind) {
      const started = performance.now();
      try {
        const response = await requests[kind](AbortSignal.timeout(HANG_MS));
        const body = await response.text();
        return {
          kind,
          status: response.status,
          retryAfter: response.headers.get('retry-after'),
          problem: new URLSearchParams(body).get('oauth_problem'),
          hung: false,
          started,
          ended: performance.now(),
        };
      } catch {
        const ended = performance.now();
        return { kind, status: 0, retryAfter: null, problem: null, hung: true, started, ended };
      }
    },
    async close() {
      // Each one, even when an earlier one fails, so nothing is left listening.
      const steps = [app, store, upstream, postgres, redis].map((item) => () => item.close());
      const failures: unknown[] = [];
      for (const step of steps) await step().catch((error: unknown) => failures.push(error));
      if (failures.length > 0) throw new AggregateError(failures, 'closing the fault world');
    },
  };
}

export interface OutageRun {
  readonly answers: readonly Answer[];
  /** When the service was taken away (after cut() resolved) and given back (before restore). */
  readonly downFrom: number;
  readonly downUntil: number;
  /** True when every kind answered 200 again after the restore, without a restart. */
  readonly recovered: boolean;
}

/**
 * Runs `workers` loops of requests of every kind; after a baseline, takes the service away
 * with `takeAway`, keeps it away for `downMs`, gives it back with `giveBack`, and keeps the
 * load on until every kind has answered 200 again (at most `recoveryMs`).
 */
export async function runOutage(
  world: FaultWorld,
  options: {
    takeAway: () => Promise<void> | void;
    giveBack: () => Promise<void>;
    downMs?: number;
    recoveryMs?: number;
    workers?: number;
  },
): Promise<OutageRun> {
  const answers: Answer[] = [];
  let running = true;
  const workers = Array.from({ length: options.workers ?? 5 }, async (_, index) => {
    for (let i = index; running; i++) answers.push(await world.send(kinds[i % kinds.length]!));
  });
  await sleep(300);
  await options.takeAway();
  const downFrom = performance.now();
  await sleep(options.downMs ?? 3000);
  const downUntil = performance.now();
  await options.giveBack();
  const deadline = downUntil + (options.recoveryMs ?? 20_000);
  let recovered = false;
  while (!recovered && performance.now() < deadline) {
    await sleep(100);
    const back = new Set(
      answers.filter((a) => a.started > downUntil && a.status === 200).map((a) => a.kind),
    );
    recovered = kinds.every((kind) => back.has(kind));
  }
  running = false;
  await Promise.all(workers);
  return { answers, downFrom, downUntil, recovered };
}

/** Answers to requests sent and answered entirely while the service was away. */
export function duringOutage(run: OutageRun): Answer[] {
  return run.answers.filter((a) => a.started >= run.downFrom && a.ended <= run.downUntil);
}
