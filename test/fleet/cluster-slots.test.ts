// Where Latchkey's nonce keys fall among Redis Cluster's 16,384 hash slots (CRC16 of the key,
// or of its {hash tag}), computed from the keys the Redis nonce store really writes to a real
// Redis (no cluster needed). Each verified request runs one script on two keys, its second's
// bucket and the bucket index, and Redis Cluster runs a script only when all its keys share a
// slot. So: without a hash tag the buckets spread over many slots but most requests' scripts
// would be refused (CROSSSLOT); with the tag the docs give (`{latchkey}:`) every script is
// valid and every key is in one slot, so one shard carries all nonce traffic
// (docs/deployment.md, "Capacity").
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Redis } from 'ioredis';
import { connectRedis, createRedisNonceStore } from '../../src/store/index.ts';
import { deleteKeys, probeRedis, redisUrl } from '../stores/support-services.ts';
import { requirement } from '../support/requirements.ts';

// cluster-key-slot is the CRC16 slot function ioredis's cluster client routes by (no types).
const slotOf = createRequire(import.meta.url)('cluster-key-slot') as (key: string) => number;

const skip = requirement('Redis at 127.0.0.1:6379', await probeRedis());

/** The keys the nonce store wrote under `prefix` for requests over `seconds` seconds. */
async function keysWritten(redis: Redis, prefix: string, seconds: number): Promise<string[]> {
  const nonces = createRedisNonceStore(redis, { prefix });
  const start = Math.floor(Date.now() / 1000);
  for (let second = 0; second < seconds; second++) {
    for (let request = 0; request < 3; request++) {
      const key = { clientKey: 'c', token: 't', timestamp: start + second, nonce: `${request}` };
      assert.equal(await nonces.remember(key, start + second + 300), true);
    }
  }
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    keys.push(...found);
    cursor = next;
  } while (cursor !== '0');
  return keys;
}

describe('the nonce keys among Redis Cluster slots', { skip }, () => {
  const run = randomBytes(6).toString('hex');
  const plain = `latchkey-test-${run}:`;
  const tagged = `{latchkey-test-${run}}:`;
  let redis: Redis;

  before(async () => {
    redis = await connectRedis(redisUrl);
  });
  after(async () => {
    await deleteKeys(redis, plain);
    await deleteKeys(redis, tagged);
    redis.disconnect();
  });

  it('without a hash tag: buckets spread over slots, but a request script spans two slots', async () => {
    const keys = await keysWritten(redis, plain, 120);
    const index = `${plain}nonce-buckets`;
    const buckets = keys.filter((key) => key !== index);
    assert.equal(buckets.length, 120);
    assert.ok(new Set(buckets.map(slotOf)).size > 100, 'buckets spread over many slots');
    // Each request's script touches its bucket and the index: refused by a cluster unless
    // both are in one slot, which happens for about 1 bucket in 16,384.
    const crossSlot = buckets.filter((bucket) => slotOf(bucket) !== slotOf(index));
    assert.ok(crossSlot.length >= 119, `${crossSlot.length} of 120 seconds' scripts cross slots`);
  });

  it('with the hash tag the docs give: every script valid, every key in one slot', async () => {
    const keys = await keysWritten(redis, tagged, 120);
    assert.equal(keys.length, 121);
    assert.deepEqual(new Set(keys.map(slotOf)), new Set([slotOf(`${tagged}nonce-buckets`)]));
  });
});
