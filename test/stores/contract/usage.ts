// Contract: UsageStore (src/store/usage.ts), written once for both SQL stores but for adding
// a batch: batches add up whatever instance wrote them, a client's days read back grouped and
// oldest first, and the purge removes whole days before a cut-off, their failures and owners
// with them, and counts the client-days it removed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Store } from '../../../src/store/index.ts';
import type { UsageCounts } from '../../../src/store/usage.ts';
import { minute, now, unique } from './fixtures.ts';

function batch(
  clientKey: string,
  day: string,
  requests: number,
  lastUsedAt: number | null,
  failures: Record<string, number> = {},
  owners: string[] = [],
): UsageCounts {
  return {
    clientKey,
    day,
    requests,
    failures: new Map(Object.entries(failures)),
    owners: new Set(owners),
    lastUsedAt,
  };
}

export function describeUsage(store: () => Store): void {
  describe("a client's usage per day", () => {
    it('adds batches up: requests and failures summed, owners merged, the later last use kept', async () => {
      const key = unique('client');
      await store().usage.add([
        batch(key, '2025-06-01', 2, now, { nonce_used: 1 }, ['owner-1']),
        batch(key, '2025-06-02', 1, now + minute, {}, ['owner-1']),
      ]);
      // Another instance's batch: failures only for the day's last use (null keeps it).
      await store().usage.add([
        batch(key, '2025-06-01', 3, null, { nonce_used: 2, signature_invalid: 1 }, [
          'owner-1',
          'owner-2',
        ]),
      ]);
      await store().usage.add([]);
      assert.deepEqual(await store().usage.days(key, '2025-06-01'), [
        {
          day: '2025-06-01',
          requests: 5,
          failures: { nonce_used: 3, signature_invalid: 1 },
          owners: 2,
          lastUsedAt: now,
        },
        { day: '2025-06-02', requests: 1, failures: {}, owners: 1, lastUsedAt: now + minute },
      ]);
      const fromSecond = await store().usage.days(key, '2025-06-02');
      assert.deepEqual(
        fromSecond.map((day) => day.day),
        ['2025-06-02'],
      );
      assert.deepEqual(await store().usage.days(unique('client'), '2000-01-01'), []);
    });

    it('purges the days before a cut-off with their failures and owners, and counts them', async () => {
      const key = unique('client');
      const days = ['1971-01-01', '1971-01-02', '1971-01-03'];
      await store().usage.add(
        days.map((day) => batch(key, day, 1, now, { nonce_used: 1 }, ['owner-1'])),
      );
      // Days this old are this suite's alone; a run stopped half-way may have left some.
      assert.ok((await store().usage.purgeBefore('1971-01-03')) >= 2);
      assert.deepEqual(await store().usage.days(key, '1900-01-01'), [
        { day: '1971-01-03', requests: 1, failures: { nonce_used: 1 }, owners: 1, lastUsedAt: now },
      ]);
      // A purged day counted again starts from nothing: its failures and owners went too.
      await store().usage.add([batch(key, '1971-01-01', 1, null)]);
      const again = await store().usage.days(key, '1900-01-01');
      assert.deepEqual(again[0], {
        day: '1971-01-01',
        requests: 1,
        failures: {},
        owners: 0,
        lastUsedAt: null,
      });
      assert.ok((await store().usage.purgeBefore('1971-01-04')) >= 2);
      assert.deepEqual(await store().usage.days(key, '1900-01-01'), []);
    });
  });
}
