// Wrong admin tokens are counted per address across instances: on PostgreSQL + Redis, a flood
// split between two instances meets the one limit, and each instance then refuses the address.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { Redis } from 'ioredis';
import { ADMIN_AUTH_FAILURES_PER_MINUTE } from '../../src/provider/index.ts';
import { connectRedis, createPostgresStore } from '../../src/store/index.ts';
import {
  deleteKeys,
  dropSchema,
  postgresUrl,
  probePostgres,
  probeRedis,
  redisUrl,
  runName,
} from '../stores/support-services.ts';
import { requirement } from '../support/requirements.ts';
import { call, freshAddress, startAdmin } from './support.ts';

const skip =
  requirement('PostgreSQL at 127.0.0.1:5432', await probePostgres()) ||
  requirement('Redis at 127.0.0.1:6379', await probeRedis());

describe('Wrong admin tokens on two instances (PostgreSQL + Redis)', { skip }, () => {
  const schema = runName('schema');
  const prefix = runName('prefix');
  const clients: Redis[] = [];
  const open = async () => {
    const redis = await connectRedis(redisUrl);
    clients.push(redis);
    return createPostgresStore({
      connectionString: postgresUrl,
      schema,
      redis,
      redisPrefix: prefix,
    });
  };
  after(async () => {
    if (clients[0] !== undefined) await deleteKeys(clients[0], prefix);
    for (const redis of clients) redis.disconnect();
    await dropSchema(schema);
  });

  it('shares one count per address: the flood meets the limit wherever it lands', async () => {
    const first = await startAdmin(await open());
    const second = await startAdmin(await open(), {}, '-2').catch(async (error: unknown) => {
      await first.close();
      throw error;
    });
    try {
      const from = freshAddress();
      const wrong = { authorization: `Bearer lka_0123456789abcdef_${'x'.repeat(43)}` };
      for (let index = 0; index < ADMIN_AUTH_FAILURES_PER_MINUTE; index++) {
        const world = index % 2 === 0 ? first : second;
        assert.equal((await call(world, 'GET', '/admin/whoami', { as: wrong, from })).status, 401);
      }
      assert.equal((await call(first, 'GET', '/admin/whoami', { as: wrong, from })).status, 429);
      assert.equal((await call(second, 'GET', '/admin/whoami', { as: wrong, from })).status, 429);
      assert.equal((await call(second, 'GET', '/admin/whoami', { as: 'auditor' })).status, 200);
    } finally {
      await first.close();
      await second.close();
    }
  });
});
