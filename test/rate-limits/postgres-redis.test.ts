// Per-client rate limits on the scale-out store: two instances count in Redis (a key prefix
// of their own) and share every limit.
import { after, describe } from 'node:test';
import { Redis } from 'ioredis';
import { openStore } from '../../src/store/index.ts';
import { requirement } from '../support/requirements.ts';
import {
  deleteKeys,
  dropSchema,
  postgresUrl,
  probePostgres,
  probeRedis,
  redisUrl,
  runName,
} from '../stores/support-services.ts';
import { describeRateLimits } from './suite.ts';

const skip =
  requirement('PostgreSQL', await probePostgres()) || requirement('Redis', await probeRedis());

describe('Rate limits on PostgreSQL + Redis', { skip }, () => {
  const schema = runName('schema');
  const redisPrefix = runName('prefix');
  after(async () => {
    await dropSchema(schema);
    const redis = new Redis(redisUrl);
    await deleteKeys(redis, redisPrefix);
    redis.disconnect();
  });
  describeRateLimits(
    'two instances, counted in Redis',
    () => openStore(postgresUrl, { schema, redis: redisUrl, redisPrefix }),
    { shared: true },
  );
});
