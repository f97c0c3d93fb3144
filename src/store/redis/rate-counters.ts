/**
 * Rate-limit counters in Redis, shared by every instance: @fastify/rate-limit's RedisStore
 * script (INCR, here INCRBY, the expiry set by the first hits, the time left read back) in
 * one atomic call.
 *
 * @example const counters = createRedisRateCounters(redis, { prefix: 'latchkey:' });
 */
import type { Redis } from 'ioredis';
import type { RateCounterStore } from '../types.ts';
import { defineScript, integer } from './script.ts';

// KEYS: the counter. ARGV: the window (ms), the hits. Returns { count, ttl ms }.
const incrScript = defineScript(`
  local count = redis.call('INCRBY', KEYS[1], ARGV[2])
  local ttl = tonumber(ARGV[1])
  if count == tonumber(ARGV[2]) then
    redis.call('PEXPIRE', KEYS[1], ttl)
  else
    ttl = redis.call('PTTL', KEYS[1])
    if ttl < 0 then
      redis.call('PEXPIRE', KEYS[1], ARGV[1])
      ttl = tonumber(ARGV[1])
    end
  end
  return { count, ttl }
`);

export function createRedisRateCounters(
  redis: Redis,
  options: { readonly prefix: string },
): RateCounterStore {
  return {
    async incr(key, windowMs, hits = 1) {
      const reply = await incrScript(
        redis,
        [`${options.prefix}rate:${key}`],
        [Math.max(1, Math.ceil(windowMs)), hits],
      );
      if (!Array.isArray(reply)) throw new TypeError('The Redis script did not return a pair.');
      return { count: integer(reply[0]), ttlMs: integer(reply[1]) };
    },
  };
}
