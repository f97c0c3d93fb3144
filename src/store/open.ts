/**
 * One entry point from configuration to a store (`LATCHKEY_DATABASE`, `LATCHKEY_REDIS`): a
 * `postgres://` or `postgresql://` URL opens PostgreSQL, with Redis for nonces and login
 * counters when a `redis://` (or `rediss://`) URL is also given; anything else is a SQLite
 * file path. With Redis, clients and tokens are cached on each instance and invalidated through
 * the Redis channel `<redisPrefix>invalidate` (src/store/cached.ts).
 *
 * @example const store = await openStore(process.env.LATCHKEY_DATABASE ?? 'data/latchkey.db');
 */
import { fixedKeyring, keyringBeside, keySetOf } from './key-file.ts';
import type { Redis } from 'ioredis';
import { createCachedStore } from './cached.ts';
import { createSqliteStore } from './sqlite/index.ts';
import { MissingSealingKeyError, missingKeyIds, type Keyring } from './sealing.ts';
import { DEFAULT_REDIS_PREFIX, isPostgresUrl, isRedisUrl } from './locations.ts';
import type { Store } from './types.ts';

export interface OpenStoreOptions {
  /** `redis://…`: nonces and login counters in Redis (PostgreSQL only). */
  readonly redis?: string;
  /** PostgreSQL schema (default `latchkey`). */
  readonly schema?: string;
  /** Prefix of the Redis keys (default `latchkey:`). */
  readonly redisPrefix?: string;
  /** Apply pending PostgreSQL migrations at start (default true). */
  readonly migrate?: boolean;
  /** The per-instance cache of clients and tokens (with Redis only). */
  readonly cache?: { readonly ttlMs?: number; readonly maxEntries?: number };
  readonly now?: () => number;
  /**
   * SQLite only: checkpoint the WAL from a worker every this many ms (default 1000), or 0 for
   * SQLite's own automatic checkpoints on the writing connection, which never hold a writer
   * back (a short-lived command, such as a bulk import, whose commits a RESTART checkpoint
   * could otherwise keep waiting past the busy timeout).
   */
  readonly checkpointIntervalMs?: number;
  /** The keys that seal secrets at rest (src/store/key-file.ts); without it, secrets in clear. */
  readonly keyring?: Keyring | undefined;
  /**
   * The sealing keys as `LATCHKEY_SECRET_KEY` spells them: 32-byte keys in base64 (or
   * base64url), separated by commas, the first one sealing. Default: the environment's
   * `LATCHKEY_SECRET_KEY`, as `latchkey serve` reads it; a `keyring` given wins.
   */
  readonly secretKey?: string | undefined;
  /**
   * Refuse to open (MissingSealingKeyError) a database holding secrets sealed under a key the
   * keyring does not have, rather than failing every request that reads one (default true).
   * It counts the rows per key (`secrets.countByKey`), one scan of the three sealed tables;
   * `false` for a tool that must open such a database, to report on it (`latchkey keys status`).
   */
  readonly checkKeys?: boolean;
}

export { isPostgresUrl, isRedisUrl } from './locations.ts';

export async function openStore(url: string, options: OpenStoreOptions = {}): Promise<Store> {
  const keyring = keyringFor(url, options);
  const store = await openWith(url, { ...options, keyring });
  if (options.checkKeys === false) return store;
  try {
    const counts = await store.secrets.countByKey();
    const missing = missingKeyIds(counts, keyring);
    if (missing.length > 0) throw new MissingSealingKeyError(missing, counts);
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}

/** The variable `latchkey serve` reads its sealing keys from (docs/configuration.md). */
const SECRET_KEY_VARIABLE = 'LATCHKEY_SECRET_KEY';

/**
 * The keyring given; else the keys in `secretKey` or `LATCHKEY_SECRET_KEY`, as serve takes
 * them; else, for an SQLite file, the key file `latchkey serve` keeps beside the database when
 * there is one: an application opening the same database must read what serve sealed.
 */
function keyringFor(url: string, options: OpenStoreOptions): Keyring | undefined {
  if (options.keyring !== undefined) return options.keyring;
  const secretKey = options.secretKey ?? process.env[SECRET_KEY_VARIABLE];
  if (secretKey !== undefined && secretKey.trim() !== '') {
    return fixedKeyring(keySetOf(secretKey));
  }
  return keyringBeside(url);
}

async function openWith(url: string, options: OpenStoreOptions): Promise<Store> {
  const { redis: redisUrl, now, keyring } = options;
  if (!isPostgresUrl(url)) {
    if (redisUrl !== undefined) {
      throw new TypeError('A Redis URL is used only with a PostgreSQL database.');
    }
    return createSqliteStore({
      path: url,
      keyring,
      ...(now === undefined ? {} : { now }),
      ...(options.checkpointIntervalMs === undefined
        ? {}
        : { checkpointIntervalMs: options.checkpointIntervalMs }),
    });
  }
  if (redisUrl !== undefined && !isRedisUrl(redisUrl)) {
    throw new TypeError('The Redis setting must be a redis:// or rediss:// URL.');
  }
  // Loaded only for PostgreSQL: pg and ioredis are about 75 ms of start-up that the embedded
  // default does not need.
  const [{ createPostgresStore }, { connectRedis }, { createInvalidationChannel }] =
    await Promise.all([
      import('./postgres/index.ts'),
      import('./redis/connection.ts'),
      import('./redis/invalidation.ts'),
    ]);
  let redis: Redis | undefined;
  try {
    redis = redisUrl === undefined ? undefined : await connectRedis(redisUrl);
    const store = await createPostgresStore({
      connectionString: url,
      keyring,
      ...(redis === undefined ? {} : { redis }),
      ...(options.schema === undefined ? {} : { schema: options.schema }),
      ...(options.redisPrefix === undefined ? {} : { redisPrefix: options.redisPrefix }),
      ...(options.migrate === undefined ? {} : { migrate: options.migrate }),
      ...(now === undefined ? {} : { now }),
    });
    const close = store.close;
    // The store owns the Redis client it opened here.
    const owned: Store = {
      ...store,
      async close() {
        await close();
        redis?.disconnect();
      },
    };
    if (redisUrl === undefined) return owned;
    const channel = `${options.redisPrefix ?? DEFAULT_REDIS_PREFIX}invalidate`;
    return await createCachedStore(owned, {
      channel: createInvalidationChannel(redisUrl, { channel }),
      ...options.cache,
      ...(now === undefined ? {} : { now }),
    }).catch(async (error: unknown) => {
      await close();
      throw error;
    });
  } catch (error) {
    redis?.disconnect();
    throw error;
  }
}
