// Per-client rate limits on the scale-out store: two instances count in Redis (a key prefix
// of their own) and share every limit.
import { describe } from 'node:test';
import { postgresRedisSkip, postgresRedisStore } from '../stores/support-services.ts';
import { describeRateLimits } from './suite.ts';

const skip = await postgresRedisSkip();

describe('Rate limits on PostgreSQL + Redis', { skip }, () => {
  describeRateLimits('two instances, counted in Redis', postgresRedisStore(), { shared: true });
});
