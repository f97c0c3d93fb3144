/** A client's use per day in PostgreSQL (src/store/usage.ts UsageStore), added to in batches. */
import { usageDays } from '../usage.ts';
import type { UsageCounts, UsageStore } from '../usage.ts';
import type { Database } from './database.ts';
import { int, intOrNull, text } from './row.ts';

const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Rows as one array per column, for `unnest`. */
function columns(rows: readonly (readonly unknown[])[], width: number): unknown[][] {
  return Array.from({ length: width }, (_, column) => rows.map((row) => row[column]));
}

export function postgresUsage(db: Database): UsageStore {
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
    async days(clientKey: string, fromDay: string) {
      const values = [clientKey, fromDay];
      const [totalRows, failureRows, ownerRows] = await Promise.all([
        db.query(
          `SELECT day, requests, last_used_at FROM ${totals} WHERE client_key = $1 AND day >= $2`,
          values,
        ),
        db.query(
          `SELECT day, problem, count FROM ${failures} WHERE client_key = $1 AND day >= $2`,
          values,
        ),
        db.query(
          `SELECT day, COUNT(*) AS owners FROM ${owners}
           WHERE client_key = $1 AND day >= $2 GROUP BY day`,
          values,
        ),
      ]);
      return usageDays(
        totalRows.rows.map((row) => ({
          day: text(row, 'day'),
          requests: int(row, 'requests'),
          lastUsedAt: intOrNull(row, 'last_used_at'),
        })),
        failureRows.rows.map((row) => ({
          day: text(row, 'day'),
          problem: text(row, 'problem'),
          count: int(row, 'count'),
        })),
        ownerRows.rows.map((row) => ({ day: text(row, 'day'), owners: int(row, 'owners') })),
      );
    },
    async purgeBefore(day: string) {
      return db.transaction(async (query) => {
        await query(`DELETE FROM ${failures} WHERE day < $1`, [day]);
        await query(`DELETE FROM ${owners} WHERE day < $1`, [day]);
        return (await query(`DELETE FROM ${totals} WHERE day < $1`, [day])).count;
      });
    },
  };
}
