/**
 * The PostgreSQL runner of the stores both SQL adapters share (src/store/sql/runner.ts): each
 * statement on a pooled connection through database.ts, tables named in the store's schema.
 */
import type { SqlRunner } from '../sql/runner.ts';
import type { Database } from './database.ts';

export function postgresRunner(db: Database): SqlRunner {
  return {
    table: (name) => db.table(name),
    one: async (sql, values) => (await db.query(sql, values)).rows[0],
    all: async (sql, values) => (await db.query(sql, values)).rows,
    run: async (sql, values) => (await db.query(sql, values)).count,
    runAll: (statements) =>
      db.transaction(async (query) => {
        const counts: number[] = [];
        for (const [sql, values] of statements) counts.push((await query(sql, values)).count);
        return counts;
      }),
  };
}
