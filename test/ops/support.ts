// A shared deployment for the operations suites: PostgreSQL + Redis under a schema and key
// prefix of this run only (removed afterwards), stores opened the way `latchkey serve` opens
// them (openStore: PostgreSQL, Redis nonces, the per-instance cache), and the HTTP app on a
// provider over such a store.
import { after } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/http/app.ts';
import type { BuildOptions } from '../../src/http/app.ts';
import { createProvider } from '../../src/provider/index.ts';
import type { Provider } from '../../src/provider/index.ts';
import { connectRedis, createPostgresStore, openStore } from '../../src/store/index.ts';
import type { OpenStoreOptions, Store } from '../../src/store/index.ts';
import { requirement } from '../support/requirements.ts';
import {
  deleteKeys,
  dropSchema,
  postgresUrl,
  probePostgres,
  probeRedis,
  redisUrl,
  runName,
} from '../stores/support-services.ts';

export { postgresUrl, redisUrl } from '../stores/support-services.ts';

/** `skip` for a suite that needs both services. */
export async function servicesSkip(): Promise<string | false> {
  const postgres = requirement('PostgreSQL at 127.0.0.1:5432', await probePostgres());
  const redis = requirement('Redis at 127.0.0.1:6379', await probeRedis());
  return postgres || redis;
}

export interface Deployment {
  readonly schema: string;
  readonly prefix: string;
  /** A store as one instance opens it (cached, Redis nonces); closed after the suite. */
  open(options?: Omit<OpenStoreOptions, 'redis' | 'schema' | 'redisPrefix'>): Promise<Store>;
  /** The same database without Redis or cache: writes behind every cache's back. */
  plain(): Promise<Store>;
  /** An instance: provider and app on a fresh store of this deployment. */
  instance(app?: Omit<BuildOptions, 'provider'>): Promise<Instance>;
  /** Closes `item` after the suite, before the schema is dropped. */
  track<T extends { close(): Promise<void> }>(item: T): T;
}

export interface Instance {
  readonly store: Store;
  readonly provider: Provider;
  readonly app: FastifyInstance;
}

/** Call inside `describe`: one schema and key prefix for the block, removed after it. */
export function useDeployment(): Deployment {
  const schema = runName('schema');
  const prefix = runName('prefix');
  const opened: Array<{ close(): Promise<void> }> = [];
  after(async () => {
    for (const item of opened.reverse()) await item.close().catch(() => undefined);
    await dropSchema(schema).catch(() => undefined);
    const redis = await connectRedis(redisUrl).catch(() => undefined);
    if (redis !== undefined) {
      await deleteKeys(redis, prefix);
      redis.disconnect();
    }
  });
  const deployment: Deployment = {
    schema,
    prefix,
    async open(options = {}) {
      const store = await openStore(postgresUrl, {
        ...options,
        redis: redisUrl,
        schema,
        redisPrefix: prefix,
      });
      opened.push(store);
      return store;
    },
    async plain() {
      const store = await createPostgresStore({ connectionString: postgresUrl, schema });
      opened.push(store);
      return store;
    },
    async instance(app = {}) {
      const store = await deployment.open();
      const provider = createProvider({ store });
      const built = await buildApp({ maintenance: false, ...app, provider });
      opened.push(built);
      return { store, provider, app: built };
    },
    track(item) {
      opened.push(item);
      return item;
    },
  };
  return deployment;
}

/** Repeats `attempt` until it returns a value other than undefined, for at most `ms`. */
export async function until<T>(ms: number, attempt: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await attempt();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Not reached within ${ms} ms.`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
