/** A client's use per day in SQLite (src/store/usage.ts UsageStore), added to in batches. */
import type { DatabaseSync } from 'node:sqlite';
import { usageDays } from '../usage.ts';
import type { UsageCounts, UsageStore } from '../usage.ts';
import { method } from './errors.ts';
import type { Transaction } from './transaction.ts';

export function sqliteUsage(db: DatabaseSync, transaction: Transaction): UsageStore {
  // A failed-only batch (lastUsedAt NULL) keeps the stored last use: MAX ignores NULL.
  const addTotals = db.prepare(
    `INSERT INTO client_usage (client_key, day, requests, last_used_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (client_key, day) DO UPDATE SET requests = requests + excluded.requests,
       last_used_at = CASE WHEN excluded.last_used_at IS NULL THEN last_used_at
         WHEN last_used_at IS NULL THEN excluded.last_used_at
         ELSE MAX(last_used_at, excluded.last_used_at) END`,
  );
  const addFailures = db.prepare(
    `INSERT INTO client_usage_failures (client_key, day, problem, count) VALUES (?, ?, ?, ?)
     ON CONFLICT (client_key, day, problem) DO UPDATE SET count = count + excluded.count`,
  );
  const addOwner = db.prepare(
    `INSERT INTO client_usage_owners (client_key, day, owner_id) VALUES (?, ?, ?)
     ON CONFLICT DO NOTHING`,
  );
  const selectTotals = db.prepare(
    `SELECT day, requests, last_used_at FROM client_usage WHERE client_key = ? AND day >= ?`,
  );
  const selectFailures = db.prepare(
    `SELECT day, problem, count FROM client_usage_failures WHERE client_key = ? AND day >= ?`,
  );
  const selectOwners = db.prepare(
    `SELECT day, COUNT(*) AS owners FROM client_usage_owners
     WHERE client_key = ? AND day >= ? GROUP BY day`,
  );
  const purge = [
    db.prepare('DELETE FROM client_usage_failures WHERE day < ?'),
    db.prepare('DELETE FROM client_usage_owners WHERE day < ?'),
  ];
  const purgeTotals = db.prepare('DELETE FROM client_usage WHERE day < ?');

  function addOne(batch: UsageCounts): void {
    addTotals.run(batch.clientKey, batch.day, batch.requests, batch.lastUsedAt);
    for (const [problem, count] of batch.failures) {
      addFailures.run(batch.clientKey, batch.day, problem, count);
    }
    for (const owner of batch.owners) addOwner.run(batch.clientKey, batch.day, owner);
  }

  return {
    add: method((batches: readonly UsageCounts[]) => {
      if (batches.length === 0) return;
      transaction(() => {
        for (const batch of batches) addOne(batch);
      });
    }),
    days: method((clientKey: string, fromDay: string) =>
      usageDays(
        selectTotals.all(clientKey, fromDay).map((row) => ({
          day: String(row.day),
          requests: Number(row.requests),
          lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
        })),
        selectFailures.all(clientKey, fromDay).map((row) => ({
          day: String(row.day),
          problem: String(row.problem),
          count: Number(row.count),
        })),
        selectOwners.all(clientKey, fromDay).map((row) => ({
          day: String(row.day),
          owners: Number(row.owners),
        })),
      ),
    ),
    purgeBefore: method((day: string) =>
      transaction(() => {
        for (const statement of purge) statement.run(day);
        return Number(purgeTotals.run(day).changes);
      }),
    ),
  };
}
