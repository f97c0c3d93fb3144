/**
 * Login-throttling counters in Redis, shared by every instance: one sorted set per key, a
 * member per hit scored by its time, so the count is a true sliding window over the caller's
 * clock (as in the SQL adapters). One Lua script drops the hits that left the window, adds
 * this one and counts, atomically. The set expires a window after its last hit, and holds at
 * most `maxHits` members: past that the count saturates, far above any throttling limit, so
 * an attacker hammering one account cannot grow it without bound.
 *
 * @example const attempts = createRedisAttemptStore(redis, { prefix: 'latchkey:' });
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { AttemptStore } from '../types.ts';
import { redisCall } from './errors.ts';
import { defineScript, integer } from './script.ts';

export interface RedisAttemptStoreOptions {
  readonly prefix: string;
  /** Hits kept per key (default 10 000); counts saturate there. */
  readonly maxHits?: number;
}

// ARGV: now, window start (hits at or before it are out), unique member, TTL (ms), max hits.
const hitScript = defineScript(`
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[3])
  local count = redis.call('ZCARD', KEYS[1])
  local excess = count - tonumber(ARGV[5])
  if excess > 0 then
    redis.call('ZREMRANGEBYRANK', KEYS[1], 0, excess - 1)
    count = count - excess
  end
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  return count
`);

export function createRedisAttemptStore(
  redis: Redis,
  options: RedisAttemptStoreOptions,
): AttemptStore {
  const keyOf = (key: string) => `${options.prefix}attempts:${key}`;
  const maxHits = options.maxHits ?? 10_000;

  return {
    async hit(key: string, now: number, windowMs: number) {
      // Hits at the same millisecond count separately: each has its own member.
      const member = `${now}:${randomBytes(6).toString('base64url')}`;
      const ttl = Math.max(1, Math.ceil(windowMs));
      const count = await hitScript(
        redis,
        [keyOf(key)],
        [now, now - windowMs, member, ttl, maxHits],
      );
      return integer(count);
    },
    async reset(key: string) {
      await redisCall(() => redis.del(keyOf(key)));
    },
  };
}
