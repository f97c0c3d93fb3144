// Caches: the per-instance cache of clients, tokens and owners (src/store/cached.ts) on the
// shared store. Two stores on one schema and key prefix stand for two instances; a third,
// without Redis, writes behind every cache's back to show what the cache still serves.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  cacheReportOf,
  createCachedStore,
  createInvalidationChannel,
  createPostgresStore,
} from '../../src/store/index.ts';
import type { Store } from '../../src/store/index.ts';
import { createParties, newClient, newOwner, now } from '../stores/contract/fixtures.ts';
import { startProxy } from '../stores/support-faults.ts';
import { postgresUrl, servicesSkip, until, useDeployment } from './support.ts';

const skip = await servicesSkip();

async function issueToken(store: Store, clientKey: string, ownerId: string, token: string) {
  return store.tokenCredentials.create({
    token,
    secret: `${token}-secret`,
    clientKey,
    ownerId,
    scope: '',
    issuedAt: now,
    expiresAt: null,
  });
}

describe('caches: clients and tokens per instance', { skip }, () => {
  const deployment = useDeployment();

  it('answers a repeated client and token lookup from the cache', async () => {
    const store = await deployment.open();
    const { clientKey, ownerId } = await createParties(store);
    await issueToken(store, clientKey, ownerId, `t-${clientKey}`);
    await store.clients.find(clientKey);
    await store.tokenCredentials.find(`t-${clientKey}`);
    await store.clients.find(clientKey);
    await store.tokenCredentials.find(`t-${clientKey}`);
    const report = cacheReportOf(store);
    assert.deepEqual(
      [report?.clients.hits, report?.clients.misses, report?.tokens.hits, report?.tokens.misses],
      [1, 1, 1, 1],
    );
  });

  it('serves a cached client until its TTL even when the row changed unannounced', async () => {
    let clock = now;
    const store = await deployment.open({ cache: { ttlMs: 1000 }, now: () => clock });
    const plain = await deployment.plain();
    const { clientKey } = await createParties(store);
    await store.clients.find(clientKey);
    await plain.clients.update(clientKey, { name: 'Renamed behind the cache' });
    assert.equal((await store.clients.find(clientKey))?.name, 'Photo printer');
    clock += 1001; // past the TTL
    assert.equal((await store.clients.find(clientKey))?.name, 'Renamed behind the cache');
  });

  it('keeps no miss: a client created elsewhere is found at once', async () => {
    const store = await deployment.open();
    const plain = await deployment.plain();
    const client = newClient();
    assert.equal(await store.clients.find(client.key), undefined);
    await plain.clients.create(client);
    assert.equal((await store.clients.find(client.key))?.key, client.key);
  });

  it('keeps at most maxEntries, dropping the least recently used first', async () => {
    const store = await deployment.open({ cache: { maxEntries: 2 } });
    const keys = [];
    for (let i = 0; i < 3; i++) keys.push((await store.clients.create(newClient())).key);
    const [first, second, third] = keys as [string, string, string];
    await store.clients.find(first);
    await store.clients.find(second);
    await store.clients.find(first); // first is now the most recently used
    await store.clients.find(third); // evicts second
    const before = cacheReportOf(store)!.clients;
    await store.clients.find(first);
    await store.clients.find(second);
    const after = cacheReportOf(store)!.clients;
    assert.deepEqual(
      [after.hits - before.hits, after.misses - before.misses, after.entries],
      [1, 1, 2],
    );
  });

  describe('a write on one instance reaches the other instance’s cache', () => {
    /** Both instances have the records cached; returns what the second one now reads. */
    async function twoInstances() {
      const first = await deployment.open();
      const second = await deployment.open();
      const { clientKey, ownerId } = await createParties(first);
      const token = `t-${clientKey}`;
      await issueToken(first, clientKey, ownerId, token);
      for (const store of [first, second]) {
        await store.clients.find(clientKey);
        await store.tokenCredentials.find(token);
      }
      return { first, second, clientKey, ownerId, token };
    }

    it('a rotated client secret', async () => {
      const { first, second, clientKey } = await twoInstances();
      await first.clients.update(clientKey, { secret: 'rotated-secret' });
      await until(5000, async () =>
        (await second.clients.find(clientKey))?.secret === 'rotated-secret' ? true : undefined,
      );
    });

    it('a removed client, and the tokens issued to it', async () => {
      const { first, second, clientKey, token } = await twoInstances();
      await first.clients.remove(clientKey);
      await until(5000, async () =>
        (await second.clients.find(clientKey)) === undefined &&
        (await second.tokenCredentials.find(token)) === undefined
          ? true
          : undefined,
      );
    });

    it('a removed owner’s tokens', async () => {
      const { first, second, ownerId, token } = await twoInstances();
      await first.owners.remove(ownerId);
      await until(5000, async () =>
        (await second.tokenCredentials.find(token)) === undefined ? true : undefined,
      );
    });

    it('a renamed owner (an external owner signing in with a new name)', async () => {
      const { first, second, ownerId } = await twoInstances();
      await second.owners.findById(ownerId);
      await first.owners.rename(ownerId, 'Ada King');
      await until(5000, async () =>
        (await second.owners.findById(ownerId))?.name === 'Ada King' ? true : undefined,
      );
    });

    it('a revoked token', async () => {
      const { first, second, token } = await twoInstances();
      await first.tokenCredentials.revoke(token, now + 1);
      await until(5000, async () =>
        (await second.tokenCredentials.find(token))?.revokedAt === now + 1 ? true : undefined,
      );
    });

    it('a revoked grant (every token of an owner for a client)', async () => {
      const { first, second, ownerId, clientKey, token } = await twoInstances();
      await first.tokenCredentials.revokeGrant(ownerId, clientKey, now + 1);
      await until(5000, async () =>
        (await second.tokenCredentials.find(token))?.revokedAt === now + 1 ? true : undefined,
      );
    });
  });

  describe('fail closed when the channel is lost', () => {
    /** A cached store whose channel goes through a proxy the test can cut. */
    async function behindProxy() {
      const proxy = await startProxy(6379);
      const inner = await createPostgresStore({
        connectionString: postgresUrl,
        schema: deployment.schema,
      });
      const store = await createCachedStore(inner, {
        channel: createInvalidationChannel(`redis://127.0.0.1:${proxy.port}`, {
          channel: `${deployment.prefix}invalidate`,
        }),
      });
      const plain = await deployment.plain();
      const client = await store.clients.create(newClient());
      await store.clients.find(client.key);
      await plain.clients.update(client.key, { name: 'Changed unannounced' });
      return { proxy, store, key: client.key };
    }

    it('bypasses the cache while the subscription is down', async () => {
      const { proxy, store, key } = await behindProxy();
      try {
        await proxy.cut();
        await until(5000, async () => (cacheReportOf(store)?.live === false ? true : undefined));
        assert.equal((await store.clients.find(key))?.name, 'Changed unannounced');
      } finally {
        await store.close();
        await proxy.close();
      }
    });

    it('drops every entry once subscribed again after a gap', async () => {
      const { proxy, store, key } = await behindProxy();
      try {
        await proxy.cut();
        await until(5000, async () => (cacheReportOf(store)?.live === false ? true : undefined));
        await proxy.restore();
        await until(10_000, async () => (cacheReportOf(store)?.live === true ? true : undefined));
        assert.equal(cacheReportOf(store)?.clients.entries, 0);
        assert.equal((await store.clients.find(key))?.name, 'Changed unannounced');
      } finally {
        await store.close();
        await proxy.close();
      }
    });
  });

  it('answers a repeated owner lookup from the cache, so a verified request costs no round trip for it', async () => {
    const store = await deployment.open();
    const owner = await store.owners.create(newOwner());
    await store.owners.findById(owner.id);
    await store.owners.findById(owner.id);
    const report = cacheReportOf(store)!.owners;
    assert.deepEqual([report.hits, report.misses], [1, 1]);
  });
});
