// The Redis pieces of the shared store, tested directly (the contract suite runs them inside
// the PostgreSQL + Redis store): nonce first use across connections, the keys' expiry, prefix
// isolation, login counters, the invalidation channel, and failing fast when Redis is away.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Redis } from 'ioredis';
import {
  connectRedis,
  createInvalidationChannel,
  createRedisAttemptStore,
  createRedisClient,
  createRedisNonceStore,
  nonceHash,
  StoreUnavailableError,
  type InvalidationEvent,
  type NonceKey,
} from '../../src/store/index.ts';
import { requirement } from '../support/requirements.ts';
import { eventually, startProxy, within } from './support-faults.ts';
import { deleteKeys, probeRedis, redisUrl, runName } from './support-services.ts';

const skip = requirement('Redis at 127.0.0.1:6379', await probeRedis());

/** A fixed clock (ms), so the expected time to live is exact. */
const clock = 1_900_000_000_000;
const nowSeconds = clock / 1000;

function newKey(): NonceKey {
  return { clientKey: 'client', token: 'token', timestamp: nowSeconds, nonce: randomUUID() };
}

describe('Redis', { skip }, () => {
  const prefix = runName('prefix');
  const connections: Redis[] = [];
  const redis = () => connections[0]!;
  const second = () => connections[1]!;
  before(async () => {
    connections.push(await connectRedis(redisUrl), await connectRedis(redisUrl));
  });
  after(async () => {
    await deleteKeys(redis(), prefix);
    for (const connection of connections) connection.disconnect();
  });

  describe('RFC 5849 §3.3 nonces in Redis', () => {
    const nonces = (options: { prefix?: string; connection?: Redis } = {}) =>
      createRedisNonceStore(options.connection ?? redis(), {
        prefix: options.prefix ?? prefix,
        now: () => clock,
      });

    it('accepts the first use and refuses the replay, whichever connection sees it', async () => {
      const key = newKey();
      assert.equal(await nonces().remember(key, nowSeconds + 300), true);
      assert.equal(await nonces({ connection: second() }).remember(key, nowSeconds + 300), false);
    });

    it('lets exactly one of 50 concurrent uses over two connections through', async () => {
      const key = newKey();
      const stores = [nonces(), nonces({ connection: second() })];
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => stores[i % 2]!.remember(key, nowSeconds + 300)),
      );
      assert.equal(results.filter(Boolean).length, 1);
    });

    it('lets Redis expire an entry a margin after its expiry', async () => {
      const key = { ...newKey(), timestamp: nowSeconds - 1000 };
      await nonces().remember(key, nowSeconds + 300);
      const ttl = await redis().ttl(`${prefix}nonce:${key.timestamp}`);
      assert.ok(ttl > 300 && ttl <= 300 + 60, `TTL ${ttl}`);
    });

    it('keeps an entry whose expiry has already passed for the margin still', async () => {
      const key = { ...newKey(), timestamp: nowSeconds - 1001 };
      await nonces().remember(key, nowSeconds - 10);
      const ttl = await redis().ttl(`${prefix}nonce:${key.timestamp}`);
      assert.ok(ttl > 0 && ttl <= 60, `TTL ${ttl}`);
    });

    it('groups by the request timestamp: a longer window extends the bucket, a replay is found under any window', async () => {
      const key = { ...newKey(), timestamp: nowSeconds - 1002 };
      const other = { ...key, nonce: `${key.nonce}-other` };
      assert.equal(await nonces().remember(key, nowSeconds + 100), true);
      assert.equal(await nonces().remember(key, nowSeconds + 400), false);
      assert.equal(await nonces().remember(other, nowSeconds + 400), true);
      const ttl = await redis().ttl(`${prefix}nonce:${key.timestamp}`);
      assert.ok(ttl > 400 && ttl <= 400 + 60, `TTL ${ttl}`);
      assert.equal(await nonces().remember(other, nowSeconds + 100), false);
      const ttlAfter = await redis().ttl(`${prefix}nonce:${key.timestamp}`);
      assert.ok(ttlAfter > 400, `TTL ${ttlAfter}: a shorter window never shortens it`);
    });

    it('stores only the 64-bit hash, never the nonce or the keys', async () => {
      const key = { ...newKey(), timestamp: nowSeconds - 1003 };
      await nonces().remember(key, nowSeconds + 301);
      const members = await redis().smembers(`${prefix}nonce:${key.timestamp}`);
      assert.deepEqual(members, [nonceHash(key).toString()]);
    });

    it('keeps prefixes apart: the same nonce is new under another prefix', async () => {
      const key = newKey();
      const otherPrefix = `${prefix}other:`;
      assert.equal(await nonces().remember(key, nowSeconds + 300), true);
      assert.equal(await nonces({ prefix: otherPrefix }).remember(key, nowSeconds + 300), true);
      assert.equal(await nonces({ prefix: otherPrefix }).purgeExpired(nowSeconds + 301), 1);
      assert.equal(await nonces().remember(key, nowSeconds + 300), false);
    });
  });

  describe('login attempts in Redis', () => {
    const window = 15 * 60_000;
    const attempts = (connection: Redis, maxHits?: number) =>
      createRedisAttemptStore(connection, {
        prefix,
        ...(maxHits === undefined ? {} : { maxHits }),
      });

    it('counts hits on one key from every connection', async () => {
      const key = randomUUID();
      await attempts(redis()).hit(key, clock, window);
      assert.equal(await attempts(second()).hit(key, clock + 1, window), 2);
    });

    it('lets Redis expire the counter a window after the last hit', async () => {
      const key = randomUUID();
      await attempts(redis()).hit(key, clock, window);
      const ttl = await redis().pttl(`${prefix}attempts:${key}`);
      assert.ok(ttl > 0 && ttl <= window, `PTTL ${ttl}`);
    });

    it('saturates the count at its bound instead of growing without end', async () => {
      const key = randomUUID();
      const store = attempts(redis(), 3);
      for (let i = 0; i < 5; i++) await store.hit(key, clock + i, window);
      assert.equal(await store.hit(key, clock + 5, window), 3);
      assert.equal(await redis().zcard(`${prefix}attempts:${key}`), 3);
    });
  });

  describe('the invalidation channel', () => {
    const channels: ReturnType<typeof createInvalidationChannel>[] = [];
    const open = (channel: string) => {
      const opened = createInvalidationChannel(redisUrl, { channel });
      channels.push(opened);
      return opened;
    };
    after(() => Promise.all(channels.map((channel) => channel.close())));

    /** Subscribes; `first` resolves with the first event the subscriber receives. */
    async function listen(channel: ReturnType<typeof open>) {
      let received: (event: InvalidationEvent) => void = () => undefined;
      const first = new Promise<InvalidationEvent>((resolve) => (received = resolve));
      await channel.subscribe((event) => received(event));
      return { first };
    }

    it('delivers an event published on one connection to a subscriber on another', async () => {
      const name = `${prefix}invalidate:${randomUUID()}`;
      const { first } = await listen(open(name));
      const sent: InvalidationEvent = { kind: 'token', token: randomUUID() };
      assert.equal(await open(name).publish(sent), 1);
      assert.deepEqual(await within(2000, first), sent);
    });

    it('ignores a malformed message and delivers the next well-formed one', async () => {
      const name = `${prefix}invalidate:${randomUUID()}`;
      const { first } = await listen(open(name));
      await redis().publish(name, '{"kind":"token"}');
      await redis().publish(name, 'not json');
      const sent: InvalidationEvent = { kind: 'grant', ownerId: 'o', clientKey: 'c' };
      await open(name).publish(sent);
      assert.deepEqual(await within(2000, first), sent);
    });

    it('reports a gap after its connection was lost, then delivers again', async () => {
      const name = `${prefix}invalidate:${randomUUID()}`;
      const connectionName = `latchkey-test-${randomUUID()}`;
      const subscriber = createInvalidationChannel(redisUrl, {
        channel: name,
        redisOptions: { connectionName },
      });
      channels.push(subscriber);
      let gap: () => void = () => undefined;
      const gapped = new Promise<void>((resolve) => (gap = resolve));
      const events: InvalidationEvent[] = [];
      await subscriber.subscribe((event) => events.push(event), { onGap: () => gap() });
      const list = await redis().client('LIST');
      const line = String(list)
        .split('\n')
        .find(
          (entry) => entry.includes(`name=${connectionName} `) && entry.includes('cmd=subscribe'),
        );
      const id = /\bid=(\d+)/.exec(line ?? '')?.[1];
      assert.ok(id !== undefined, 'the subscriber connection is listed');
      await redis().client('KILL', 'ID', id);
      await within(5000, gapped);
      const sent: InvalidationEvent = { kind: 'client', clientKey: randomUUID() };
      await open(name).publish(sent);
      await eventually(2000, async () => assert.deepEqual(events, [sent]));
    });
  });

  describe('Redis faults', () => {
    it('refuses to connect with StoreUnavailableError when nothing listens', async () => {
      await assert.rejects(
        within(3000, connectRedis('redis://127.0.0.1:1')),
        StoreUnavailableError,
      );
    });

    it('fails closed: a nonce check rejects with StoreUnavailableError when Redis is away', async () => {
      const proxy = await startProxy(6379);
      const connection = await connectRedis(`redis://127.0.0.1:${proxy.port}`);
      const nonces = createRedisNonceStore(connection, { prefix });
      try {
        await proxy.cut();
        await assert.rejects(
          within(3000, nonces.remember(newKey(), nowSeconds + 300)),
          StoreUnavailableError,
        );
      } finally {
        connection.disconnect();
        await proxy.close();
      }
    });

    it('rejects with StoreUnavailableError when Redis stops answering', async () => {
      const proxy = await startProxy(6379);
      const connection = await connectRedis(`redis://127.0.0.1:${proxy.port}`);
      try {
        proxy.freeze();
        await assert.rejects(
          within(4000, createRedisAttemptStore(connection, { prefix }).hit('k', clock, 1000)),
          StoreUnavailableError,
        );
      } finally {
        connection.disconnect();
        await proxy.close();
      }
    });

    it('serves again by itself once Redis is back, without a new client', async () => {
      const proxy = await startProxy(6379);
      const connection = createRedisClient(`redis://127.0.0.1:${proxy.port}`);
      await connection.connect();
      const nonces = createRedisNonceStore(connection, { prefix });
      try {
        await proxy.cut();
        await assert.rejects(nonces.size(), StoreUnavailableError);
        await proxy.restore();
        assert.equal(typeof (await eventually(8000, () => nonces.size())), 'number');
      } finally {
        connection.disconnect();
        await proxy.close();
      }
    });
  });
});
