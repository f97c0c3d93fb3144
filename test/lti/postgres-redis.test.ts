// The LTI 1.1 suite on the scale-out store: PostgreSQL (a schema of its own) for clients,
// Redis (a key prefix of its own) for nonces, so a replayed launch is refused by Redis.
import { describe } from 'node:test';
import { postgresRedisSkip, postgresRedisStore } from '../stores/support-services.ts';
import { describeLti } from './suite.ts';

const skip = await postgresRedisSkip();

describe('LTI 1.1 on PostgreSQL + Redis', { skip }, () => {
  describeLti('PostgreSQL + Redis', postgresRedisStore());
});
