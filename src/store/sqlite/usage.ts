/**
 * A client's use per day in SQLite (src/store/usage.ts UsageStore), added to in batches; what
 * both SQL stores do alike (the days, the purge) is in src/store/sql/usage.ts.
 */
import type { DatabaseSync } from 'node:sqlite';
import type { SqlRunner } from '../sql/runner.ts';
import { sqlUsage } from '../sql/usage.ts';
import type { UsageCounts, UsageStore } from '../usage.ts';
import { method } from './errors.ts';
import { read } from './row.ts';
import type { Transaction } from './transaction.ts';

export function sqliteUsage(
  db: DatabaseSync,
  sql: SqlRunner,
  transaction: Transaction,
): UsageStore {
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

  function addOne(batch: UsageCounts): void {
    addTotals.run(batch.clientKey, batch.day, batch.requests, batch.lastUsedAt);
    for (const [problem, count] of batch.failures) {
      addFailures.run(batch.clientKey, batch.day, problem, count);
    }
    for (const owner of batch.owners) addOwner.run(batch.clientKey, batch.day, owner);
  }

  return {
    ...sqlUsage(sql, read),
    add: method((batches: readonly UsageCounts[]) => {
      if (batches.length === 0) return;
      transaction(() => {
        for (const batch of batches) addOne(batch);
      });
    }),
  };
}
