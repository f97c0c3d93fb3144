/** The storage layer's public face: the contract (types.ts) and the adapters' factories. */
export * from './types.ts';
export { nonceHash } from './nonce-hash.ts';
export { createSqliteStore, type SqliteStoreOptions } from './sqlite/index.ts';
export {
  createPool,
  createPostgresStore,
  migrate,
  type PostgresStoreOptions,
} from './postgres/index.ts';
export {
  connectRedis,
  createInvalidationChannel,
  createRedisAttemptStore,
  createRedisClient,
  createRedisNonceStore,
  type InvalidationChannel,
  type InvalidationEvent,
} from './redis/index.ts';
export { openStore, type OpenStoreOptions } from './open.ts';
export {
  cacheReportOf,
  createCachedStore,
  type CachedStoreOptions,
  type CacheReport,
} from './cached.ts';
