/**
 * The shared store for several instances (docs/architecture.md "State and scale"): PostgreSQL
 * through a `pg` pool for everything, or, when a Redis client is given, Redis for the nonces
 * and login counters (the hot, short-lived state). Every wait is bounded (connect, statement,
 * client-side read), so an outage turns into StoreUnavailableError (503, fail closed) within
 * about two seconds, and the pool reconnects by itself when the database returns.
 *
 * @example const store = await createPostgresStore({ connectionString: 'postgres://…/latchkey' });
 */
import { DEFAULT_POSTGRES_SCHEMA, DEFAULT_REDIS_PREFIX } from '../locations.ts';
import { Pool } from 'pg';
import type { Redis } from 'ioredis';
import { createMemoryRateCounters } from '../memory-rate-counters.ts';
import { createRedisAttemptStore } from '../redis/attempts.ts';
import { createRedisRateCounters } from '../redis/rate-counters.ts';
import { createRedisNonceStore } from '../redis/nonces.ts';
import { createSealer, type Keyring } from '../sealing.ts';
import type { Store } from '../types.ts';
import { postgresAttempts } from './attempts.ts';
import { postgresUsage } from './usage.ts';
import { postgresClients } from './clients.ts';
import { checkSchemaName, openDatabase } from './database.ts';
import { migrate } from './migrations.ts';
import { postgresNonces } from './nonces.ts';
import { postgresSealedSecrets } from './sealed-secrets.ts';
import { postgresTemporaryCredentials } from './temporary-credentials.ts';
import { postgresTokenCredentials } from './token-credentials.ts';
import { postgresTransfer } from './transfer.ts';
import { postgresWebhooks } from './webhooks.ts';
import { fromRow, read } from './row.ts';
import { postgresRunner } from './runner.ts';
import { sqlAdminTokens } from '../sql/admin-tokens.ts';
import { sqlAudit } from '../sql/audit.ts';
import { sqlConsents } from '../sql/consents.ts';
import { sqlConsoleSessions } from '../sql/console-sessions.ts';
import { sqlPreviousCredentials } from '../sql/previous-credentials.ts';
import { sqlLoginChallenges } from '../sql/login-challenges.ts';
import { sqlOwners } from '../sql/owners.ts';
import { sqlSessions } from '../sql/sessions.ts';

export { migrate, migrations, schemaVersion } from './migrations.ts';

interface CommonOptions {
  /** Schema holding Latchkey's tables, created when missing (default `latchkey`). */
  readonly schema?: string;
  /**
   * Nonces and login counters go to Redis when given; the caller keeps ownership of it. Use
   * connectRedis() (src/store/redis/connection.ts): its bounded defaults are what keep an
   * outage from making requests wait.
   */
  readonly redis?: Redis;
  /** Prefix of the Redis keys (default `latchkey:`). */
  readonly redisPrefix?: string;
  /** Clock for the creation times the store sets itself (milliseconds). */
  readonly now?: () => number;
  /** Apply pending migrations at start (default true); false expects `latchkey migrate` ran. */
  readonly migrate?: boolean;
  /** Bound on each statement, client side (default 2500 ms). */
  readonly queryTimeoutMs?: number;
  /** The keys that seal secrets at rest (src/store/key-file.ts); without it, secrets in clear. */
  readonly keyring?: Keyring | undefined;
}

export type PostgresStoreOptions = CommonOptions &
  (
    | {
        readonly connectionString: string;
        /** Connections in the pool (default 10). */
        readonly max?: number;
        /** Bound on opening a connection (default 2000 ms). */
        readonly connectTimeoutMs?: number;
        /** Server-side bound on each statement (default 2000 ms). */
        readonly statementTimeoutMs?: number;
      }
    /** A pool the application configured and keeps: close() leaves it open. */
    | { readonly pool: Pool }
  );

/** The pool the store creates for itself, every wait bounded. */
export function createPool(
  connectionString: string,
  options: { max?: number; connectTimeoutMs?: number; statementTimeoutMs?: number } = {},
): Pool {
  const pool = new Pool({
    connectionString,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 2000,
    statement_timeout: options.statementTimeoutMs ?? 2000,
    // A connection left inside a transaction (a stalled process) must not hold its locks.
    idle_in_transaction_session_timeout: 10_000,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    application_name: 'latchkey',
  });
  // An idle connection that the server dropped (restart, failover) is discarded by the pool;
  // without a listener the error would be thrown as uncaught and end the process.
  pool.on('error', () => undefined);
  return pool;
}

/** Opens the PostgreSQL store, migrating its schema first unless told not to. */
export async function createPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  const schema = options.schema ?? DEFAULT_POSTGRES_SCHEMA;
  checkSchemaName(schema);
  const ownsPool = !('pool' in options);
  const pool = 'pool' in options ? options.pool : createPool(options.connectionString, options);
  const db = openDatabase(pool, schema, {
    ownsPool,
    queryTimeoutMs: options.queryTimeoutMs ?? 2500,
  });
  const now = options.now ?? Date.now;
  const { redis } = options;
  const prefix = options.redisPrefix ?? DEFAULT_REDIS_PREFIX;

  try {
    if (options.migrate ?? true) await migrate(pool, schema);
  } catch (error) {
    await db.close();
    throw error;
  }

  const sealer = createSealer(options.keyring);
  const sql = postgresRunner(db);
  return {
    clients: postgresClients(db, now, sealer),
    previousCredentials: sqlPreviousCredentials(sql, sealer, read.int),
    owners: sqlOwners(sql, fromRow, now),
    temporaryCredentials: postgresTemporaryCredentials(db, sealer),
    tokenCredentials: postgresTokenCredentials(db, sealer),
    nonces:
      redis === undefined ? postgresNonces(db) : createRedisNonceStore(redis, { prefix, now }),
    sessions: sqlSessions(sql, fromRow),
    consents: sqlConsents(sql, fromRow),
    attempts:
      redis === undefined ? postgresAttempts(db) : createRedisAttemptStore(redis, { prefix }),
    // Without Redis, each instance counts for itself (docs/security.md#rate-limits).
    rateCounters:
      redis === undefined
        ? createMemoryRateCounters({ now })
        : createRedisRateCounters(redis, { prefix }),
    transfer: postgresTransfer(db, sealer),
    loginChallenges: sqlLoginChallenges(sql, fromRow),
    secrets: postgresSealedSecrets(db, sealer),
    audit: sqlAudit(sql, read),
    webhooks: postgresWebhooks(db, sql, sealer),
    adminTokens: sqlAdminTokens(sql, read),
    consoleSessions: sqlConsoleSessions(sql, read),
    usage: postgresUsage(db, sql),
    async ping() {
      if (db.closed) return false;
      try {
        await db.query('SELECT 1');
        if (redis !== undefined && (await redis.ping()) !== 'PONG') return false;
        return true;
      } catch {
        return false;
      }
    },
    close: () => db.close(),
  };
}
