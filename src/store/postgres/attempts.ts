/**
 * Login-throttling counters in PostgreSQL: a sliding window kept as hits per key and
 * millisecond, as in the SQLite adapter. A hit runs in one transaction under an advisory lock
 * on its key, so concurrent hits on one account are counted one after another and none is
 * missed from another's sum (a plain snapshot would not see a concurrent insert).
 */
import type { AttemptStore } from '../types.ts';
import type { Database } from './database.ts';
import { int } from './row.ts';

/** Keeps these locks apart from the migration lock (migrations.ts) and the application's. */
const lockClass = 0x4c4c;

export function postgresAttempts(db: Database): AttemptStore {
  const attempts = db.table('attempts');

  return {
    hit: (key: string, now: number, windowMs: number) =>
      db.transaction(async (query) => {
        const start = now - windowMs;
        await query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [lockClass, key]);
        await query(`DELETE FROM ${attempts} WHERE key = $1 AND at <= $2`, [key, start]);
        await query(
          `INSERT INTO ${attempts} AS a (key, at, hits) VALUES ($1, $2, 1)
           ON CONFLICT (key, at) DO UPDATE SET hits = a.hits + 1`,
          [key, now],
        );
        const { rows } = await query(
          `SELECT coalesce(sum(hits), 0) AS n FROM ${attempts} WHERE key = $1 AND at > $2`,
          [key, start],
        );
        return rows[0] === undefined ? 0 : int(rows[0], 'n');
      }),
    async reset(key: string) {
      await db.query(`DELETE FROM ${attempts} WHERE key = $1`, [key]);
    },
  };
}
