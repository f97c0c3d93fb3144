// The LTI 1.1 suite on the scale-out store: PostgreSQL (a schema of its own) for clients,
// Redis (a key prefix of its own) for nonces, so a replayed launch is refused by Redis.
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
import { describeLti } from './suite.ts';

const skip =
  requirement('PostgreSQL', await probePostgres()) || requirement('Redis', await probeRedis());

describe('LTI 1.1 on PostgreSQL + Redis', { skip }, () => {
  const schema = runName('schema');
  const redisPrefix = runName('prefix');
  after(async () => {
    await dropSchema(schema);
    const redis = new Redis(redisUrl);
    await deleteKeys(redis, redisPrefix);
    redis.disconnect();
  });
  describeLti('PostgreSQL + Redis', () =>
    openStore(postgresUrl, { schema, redis: redisUrl, redisPrefix }),
  );
});
