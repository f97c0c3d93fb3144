/**
 * Used nonces (RFC 5849 §3.3) in Redis, shared by every instance. Nonces are grouped by their
 * request's timestamp second: one set per second (`<prefix>nonce:<timestamp>`) holding the
 * 64-bit hashes (src/store/nonce-hash.ts) as decimal integers, which Redis packs as 8-byte
 * intsets while a bucket holds ≤ 512 of them (set-max-intset-entries). A replay carries the
 * same timestamp, so SADD's "already a member" is the atomic insert-if-absent, whatever
 * timestamp window each instance checks (the window sets only how long a bucket lives).
 *
 * Each bucket expires by itself a margin after the latest expiry of its nonces (so Redis
 * stays bounded even when nobody purges; the margin covers clock skew between instances),
 * and a sorted set (`<prefix>nonce-buckets`) indexes the buckets by that expiry so that
 * purgeExpired(now) and size() keep the contract's own notion of time. Costs: remember is O(1); size() is one SCARD per
 * indexed second (≈ window + margin of them while purging runs); purgeExpired is O(purged
 * buckets). Under Redis Cluster, give the prefix a hash tag (`{latchkey}:`) so the scripts'
 * keys share a slot.
 *
 * @example const nonces = createRedisNonceStore(redis, { prefix: 'latchkey:' });
 */
import type { Redis } from 'ioredis';
import { nonceHash } from '../nonce-hash.ts';
import type { NonceKey, NonceStore } from '../types.ts';
import { defineScript, integer } from './script.ts';

export interface RedisNonceStoreOptions {
  /** Prefix of every key, so deployments (and test runs) sharing a Redis stay apart. */
  readonly prefix: string;
  /** Seconds a bucket outlives its expiry before Redis drops it (default 60). */
  readonly marginSeconds?: number;
  /** Clock for the buckets' time to live (milliseconds). */
  readonly now?: () => number;
}

// ARGV: hash, time to live, expiry second, timestamp second. A bucket's life only grows: an
// instance with a longer window extends it.
const rememberScript = defineScript(`
  if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then return 0 end
  if redis.call('TTL', KEYS[1]) < tonumber(ARGV[2]) then
    redis.call('EXPIRE', KEYS[1], ARGV[2])
    redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
  end
  return 1
`);

const purgeScript = defineScript(`
  local seconds = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1],
    'LIMIT', 0, tonumber(ARGV[3]))
  local purged = 0
  for _, second in ipairs(seconds) do
    local bucket = ARGV[2] .. second
    purged = purged + redis.call('SCARD', bucket)
    redis.call('UNLINK', bucket)
  end
  if #seconds > 0 then redis.call('ZREM', KEYS[1], unpack(seconds)) end
  return {purged, #seconds}
`);

const sizeScript = defineScript(`
  local total = 0
  for _, second in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
    total = total + redis.call('SCARD', ARGV[1] .. second)
  end
  return total
`);

/** Buckets purged per script call, so one purge never blocks Redis for long. */
const purgeBatch = 500;

export function createRedisNonceStore(redis: Redis, options: RedisNonceStoreOptions): NonceStore {
  const bucketPrefix = `${options.prefix}nonce:`;
  const index = `${options.prefix}nonce-buckets`;
  const margin = options.marginSeconds ?? 60;
  const now = options.now ?? Date.now;

  return {
    async remember(key: NonceKey, expiresAt: number) {
      const second = Math.trunc(expiresAt);
      const timestamp = Math.trunc(key.timestamp);
      // At least the margin, even for an expiry already past: the window refuses it anyway.
      const ttl = Math.max(second - Math.floor(now() / 1000), 0) + Math.max(1, margin);
      const added = await rememberScript(
        redis,
        [`${bucketPrefix}${timestamp}`, index],
        [nonceHash(key).toString(), ttl, second, timestamp],
      );
      return integer(added) === 1;
    },
    async purgeExpired(nowSeconds: number) {
      let purged = 0;
      for (;;) {
        const reply = await purgeScript(redis, [index], [nowSeconds, bucketPrefix, purgeBatch]);
        if (!Array.isArray(reply)) throw new TypeError('Unexpected reply from the purge script.');
        purged += integer(reply[0]);
        if (integer(reply[1]) < purgeBatch) return purged;
      }
    },
    async size() {
      return integer(await sizeScript(redis, [index], [bucketPrefix]));
    },
  };
}
