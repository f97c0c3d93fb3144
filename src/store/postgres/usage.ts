/**
 * A client's use per day in PostgreSQL (src/store/usage.ts UsageStore), added to in batches;
 * what both SQL stores do alike (the days, the purge) is in src/store/sql/usage.ts.
 */
import type { SqlRunner } from '../sql/runner.ts';
import { sqlUsage } from '../sql/usage.ts';
import type { UsageCounts, UsageStore } from '../usage.ts';
import type { Database } from './database.ts';
import { read } from './row.ts';

const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Rows as one array per column, for `unnest`. */
function columns(rows: readonly (readonly unknown[])[], width: number): unknown[][] {
  return Array.from({ length: width }, (_, column) => rows.map((row) => row[column]));
}

export function postgresUsage(db: Database, sql: SqlRunner): UsageStore {
  const totals = db.table('client_usage');
  const failures = db.table('client_usage_failures');
  const owners = db.table('client_usage_owners');
  // Each statement adds a whole batch (unnest); rows come in key order, so the batches of two
  // instances lock them in the same order and never deadlock. GREATEST ignores NULL: a batch
  // of failures alone keeps the stored last use, and last use never moves back.
  const addTotals = `
    INSERT INTO ${totals} (client_key, day, requests, last_used_at)
    SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[])
    ON CONFLICT (client_key, day) DO UPDATE SET
      requests = ${totals}.requests + excluded.requests,
      last_used_at = GREATEST(${totals}.last_used_at, excluded.last_used_at)`;
  const addFailures = `
    INSERT INTO ${failures} (client_key, day, problem, count)
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[])
    ON CONFLICT (client_key, day, problem) DO UPDATE SET
      count = ${failures}.count + excluded.count`;
  const addOwners = `
    INSERT INTO ${owners} (client_key, day, owner_id)
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[])
    ON CONFLICT DO NOTHING`;

  return {
    ...sqlUsage(sql, read),
    async add(batches: readonly UsageCounts[]) {
      if (batches.length === 0) return;
      const sorted = [...batches].sort(
        (a, b) => byKey(a.clientKey, b.clientKey) || byKey(a.day, b.day),
      );
      const failureRows = sorted.flatMap((batch) =>
        [...batch.failures]
          .sort(([a], [b]) => byKey(a, b))
          .map(([problem, count]) => [batch.clientKey, batch.day, problem, count] as const),
      );
      const ownerRows = sorted.flatMap((batch) =>
        [...batch.owners].sort(byKey).map((owner) => [batch.clientKey, batch.day, owner] as const),
      );
      await db.transaction(async (query) => {
        const totalRows = sorted.map((b) => [b.clientKey, b.day, b.requests, b.lastUsedAt]);
        await query(addTotals, columns(totalRows, 4));
        if (failureRows.length > 0) await query(addFailures, columns(failureRows, 4));
        if (ownerRows.length > 0) await query(addOwners, columns(ownerRows, 3));
      });
    },
  };
}
