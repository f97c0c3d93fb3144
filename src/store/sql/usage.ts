/**
 * The usage store's methods both SQL stores write alike (src/store/usage.ts UsageStore),
 * through their runner (runner.ts): a client's days and the purge. Adding a batch is each
 * dialect's own (sqlite/usage.ts, postgres/usage.ts): SQLite adds row by row inside its write
 * transaction, PostgreSQL a whole batch per statement, in key order against deadlocks.
 */
import type { ColumnReader } from '../rows.ts';
import { usageDays, type UsageStore } from '../usage.ts';
import type { Row, SqlRunner } from './runner.ts';

export type SharedUsageMethods = Omit<UsageStore, 'add'>;

export function sqlUsage(sql: SqlRunner, read: ColumnReader<Row>): SharedUsageMethods {
  const totals = sql.table('client_usage');
  const failures = sql.table('client_usage_failures');
  const owners = sql.table('client_usage_owners');

  return {
    async days(clientKey: string, fromDay: string) {
      const values = [clientKey, fromDay];
      const [totalRows, failureRows, ownerRows] = await Promise.all([
        sql.all(
          `SELECT day, requests, last_used_at FROM ${totals} WHERE client_key = $1 AND day >= $2`,
          values,
        ),
        sql.all(
          `SELECT day, problem, count FROM ${failures} WHERE client_key = $1 AND day >= $2`,
          values,
        ),
        sql.all(
          `SELECT day, COUNT(*) AS owners FROM ${owners}
           WHERE client_key = $1 AND day >= $2 GROUP BY day`,
          values,
        ),
      ]);
      return usageDays(
        totalRows.map((row) => ({
          day: read.text(row, 'day'),
          requests: read.int(row, 'requests'),
          lastUsedAt: read.intOrNull(row, 'last_used_at'),
        })),
        failureRows.map((row) => ({
          day: read.text(row, 'day'),
          problem: read.text(row, 'problem'),
          count: read.int(row, 'count'),
        })),
        ownerRows.map((row) => ({ day: read.text(row, 'day'), owners: read.int(row, 'owners') })),
      );
    },
    // The day's totals go last, in the same transaction: what they count is the answer.
    async purgeBefore(day: string) {
      const changed = await sql.runAll([
        [`DELETE FROM ${failures} WHERE day < $1`, [day]],
        [`DELETE FROM ${owners} WHERE day < $1`, [day]],
        [`DELETE FROM ${totals} WHERE day < $1`, [day]],
      ]);
      return changed[2] ?? 0;
    },
  };
}
