// The PostgreSQL and Redis services the backend suites run against (127.0.0.1:5432
// user postgres database test; 127.0.0.1:6379), a quick probe of each for requirement(), and
// per-run names (schema, key prefix) that the suites remove afterwards.
import { randomBytes } from 'node:crypto';
import { after } from 'node:test';
import { Redis } from 'ioredis';
import pg from 'pg';
import { openStore } from '../../src/store/index.ts';
import type { Store } from '../../src/store/index.ts';
import { requirement } from '../support/requirements.ts';

export const postgresUrl =
  process.env.LATCHKEY_TEST_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/test';
export const redisUrl = process.env.LATCHKEY_TEST_REDIS ?? 'redis://127.0.0.1:6379';

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A service that is there answers within this; one that is not refuses at once. More than a
 * second: on a loaded machine (suites run two at a time, the interop suite spawning its
 * interpreters) a connection has been seen to take longer, and a skip under CI then fails.
 */
const PROBE_MS = 5000;

/**
 * undefined when PostgreSQL answers within PROBE_MS, else why not. A connection that timed out
 * is tried again, twice: a loaded machine has been seen to need longer than PROBE_MS to start
 * a backend, where a server that is not there refuses at once.
 */
export async function probePostgres(): Promise<string | undefined> {
  let problem: string | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    problem = await probePostgresOnce();
    if (problem === undefined || !/timeout/i.test(problem)) return problem;
  }
  return problem;
}

async function probePostgresOnce(): Promise<string | undefined> {
  const client = new pg.Client({
    connectionString: postgresUrl,
    connectionTimeoutMillis: PROBE_MS,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return reason(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** undefined when Redis answers PING within PROBE_MS, else why not. */
export async function probeRedis(): Promise<string | undefined> {
  const redis = new Redis(redisUrl, {
    lazyConnect: true,
    connectTimeout: PROBE_MS,
    commandTimeout: PROBE_MS,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG' ? undefined : 'PING was not answered with PONG';
  } catch (error) {
    return reason(error);
  } finally {
    redis.disconnect();
  }
}

/** A schema or key prefix no other run uses. */
export function runName(kind: 'schema' | 'prefix'): string {
  const id = randomBytes(6).toString('hex');
  return kind === 'schema' ? `latchkey_test_${id}` : `latchkey-test-${id}:`;
}

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 2000 });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
  } finally {
    await client.end();
  }
}

/** Deletes every key under `prefix` (SCAN, so Redis is never blocked). */
export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    if (keys.length > 0) await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== '0');
}

/** `describe`'s `skip` for a suite on PostgreSQL + Redis: false when both answer. */
export async function postgresRedisSkip(): Promise<string | false> {
  return (
    requirement('PostgreSQL', await probePostgres()) || requirement('Redis', await probeRedis())
  );
}

/**
 * The scale-out store for the suite it is called in (inside its `describe`): PostgreSQL in a
 * schema of its own, Redis under a key prefix of its own, both removed after the suite. Each
 * call of the returned opener is another instance on the same schema and prefix.
 */
export function postgresRedisStore(): () => Promise<Store> {
  const schema = runName('schema');
  const redisPrefix = runName('prefix');
  after(async () => {
    await dropSchema(schema);
    const redis = new Redis(redisUrl);
    try {
      await deleteKeys(redis, redisPrefix);
    } finally {
      redis.disconnect();
    }
  });
  return () => openStore(postgresUrl, { schema, redis: redisUrl, redisPrefix });
}
