// Per-client rate limits on the scale-out store: two instances count in Redis (a key prefix
// of their own) and share every limit.
import { describe } from 'node:test';
import { Redis } from 'ioredis';
import { postgresRedisSkip, postgresRedisStore, redisUrl } from '../stores/support-services.ts';
import { describeRateLimits } from './suite.ts';

const skip = await postgresRedisSkip();

/** Redis keys of counters naming any of `keys` (whatever this run's prefix is). */
async function countersNaming(keys: readonly string[]): Promise<number> {
  const redis = new Redis(redisUrl);
  try {
    let found = 0;
    for (const key of keys) {
      let cursor = '0';
      do {
        const [next, names] = await redis.scan(cursor, 'MATCH', `*rate:*${key}*`, 'COUNT', 1000);
        found += names.length;
        cursor = next;
      } while (cursor !== '0');
    }
    return found;
  } finally {
    redis.disconnect();
  }
}

describe('Rate limits on PostgreSQL + Redis', { skip }, () => {
  describeRateLimits('two instances, counted in Redis', postgresRedisStore(), {
    shared: true,
    countersFor: (_store, keys) => countersNaming(keys),
  });
});
