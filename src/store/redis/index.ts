/**
 * The Redis pieces of the scaled-out store (docs/architecture.md "State and scale"): nonces, login
 * throttling counters and the cache invalidation channel, shared by every instance.
 */
export { createRedisAttemptStore, type RedisAttemptStoreOptions } from './attempts.ts';
export { connectRedis, createRedisClient, redisDefaults } from './connection.ts';
export { translateRedisError } from './errors.ts';
export {
  createInvalidationChannel,
  parseInvalidationEvent,
  type InvalidationChannel,
  type InvalidationChannelOptions,
  type InvalidationEvent,
} from './invalidation.ts';
export { createRedisNonceStore, type RedisNonceStoreOptions } from './nonces.ts';
