// Usage counted by two instances adds up in the store: requests and failures summed, owners
// merged (one seen by both is one), the later last use kept; on SQLite (two connections to
// one file) and on PostgreSQL + Redis (two instances on one schema).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { signRequest } from '../../src/client/index.ts';
import { createProvider } from '../../src/provider/index.ts';
import type { Provider } from '../../src/provider/index.ts';
import { createSqliteStore } from '../../src/store/index.ts';
import type { Store } from '../../src/store/index.ts';
import { postgresRedisSkip, postgresRedisStore } from '../stores/support-services.ts';

const DAY = Date.UTC(2026, 2, 14, 9, 0, 0);

function describeInstances(name: string, openStore: () => Promise<Store>): void {
  it(`adds up two instances' counts (${name})`, async () => {
    let clock = DAY;
    const now = () => clock;
    const stores = [await openStore(), await openStore()];
    const [first, second] = stores.map((store) => createProvider({ store, now })) as [
      Provider,
      Provider,
    ];
    try {
      const client = await first.clients.register({ name: 'Two-instance app' });
      const owners = await Promise.all(
        ['ann', 'bob', 'cy'].map((owner) =>
          first.owners.create(`${owner}-${client.key.slice(0, 6)}`, 'correct horse battery'),
        ),
      );
      const tokens = await Promise.all(
        owners.map((owner) =>
          first.tokens.issue({ clientKey: client.key, ownerId: owner.id, scope: 'read' }),
        ),
      );
      const call = (provider: Provider, owner: number, secret = client.secret) => {
        const signed = signRequest({
          method: 'GET',
          url: 'http://127.0.0.1/api/me',
          client: { key: client.key, secret },
          token: { token: tokens[owner]!.token, secret: tokens[owner]!.secret },
          timestamp: Math.floor(clock / 1000),
        });
        return provider.verifyResourceRequest({
          method: 'GET',
          scheme: 'http',
          host: '127.0.0.1',
          path: '/api/me',
          query: '',
          authorization: signed.headers.Authorization,
          contentType: undefined,
          body: undefined,
          secure: true,
          address: '192.0.2.1',
        });
      };
      // First: owners 0 and 1, 3 requests, 1 failure; second: owners 1 and 2, 2 requests,
      // 2 failures, the later use.
      await call(first, 0);
      await call(first, 1);
      await call(first, 1);
      await assert.rejects(call(first, 0, 'wrong'), /signature/i);
      clock += 60_000;
      await call(second, 1);
      clock += 60_000;
      await call(second, 2);
      await assert.rejects(call(second, 2, 'wrong'), /signature/i);
      await assert.rejects(call(second, 1, 'wrong'), /signature/i);
      await first.flushLastUse();
      await first.maintain();
      await second.maintain();
      // A second round on one instance adds to the stored day.
      await call(first, 0);
      await first.maintain();

      const [day] = await stores[0]!.usage.days(client.key, '2026-03-14');
      assert.deepEqual(day, {
        day: '2026-03-14',
        requests: 6,
        failures: { signature_invalid: 3 },
        owners: 3,
        lastUsedAt: DAY + 120_000,
      });
      // Read through the other instance too: the same shared figures.
      const seen = await second.usage.days(client.key, 2);
      assert.deepEqual(
        seen.map((d) => [d.day, d.requests]),
        [
          ['2026-03-13', 0],
          ['2026-03-14', 6],
        ],
      );
    } finally {
      await first.close();
      await second.close();
      for (const store of stores) await store.close();
    }
  });
}

describe('Usage across instances', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-usage-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('purges the days past the retention in upkeep, keeping the rest', async () => {
    const store = await createSqliteStore({ path: join(dir, 'retention.db') });
    const provider = createProvider({ store, now: () => DAY });
    try {
      const day = (name: string) => ({
        clientKey: 'kept-client',
        day: name,
        requests: 1,
        failures: new Map([['nonce_used', 1]]),
        owners: new Set(['owner-1']),
        lastUsedAt: null,
      });
      // 90 days are kept: 2025-12-14 is the oldest on 2026-03-14.
      await store.usage.add([day('2025-12-13'), day('2025-12-14'), day('2026-03-14')]);
      await provider.maintain();
      const left = await store.usage.days('kept-client', '2000-01-01');
      assert.deepEqual(
        left.map((d) => [d.day, d.requests, d.failures, d.owners]),
        [
          ['2025-12-14', 1, { nonce_used: 1 }, 1],
          ['2026-03-14', 1, { nonce_used: 1 }, 1],
        ],
      );
    } finally {
      await provider.close();
      await store.close();
    }
  });

  describeInstances('SQLite', async () => createSqliteStore({ path: join(dir, 'latchkey.db') }));
  const skip = await postgresRedisSkip();
  describe('on PostgreSQL + Redis', { skip }, () => {
    describeInstances('PostgreSQL + Redis', postgresRedisStore());
  });
});
