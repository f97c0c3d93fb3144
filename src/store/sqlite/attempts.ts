/**
 * Login-throttling counters in SQLite: a sliding window kept as hits per key and millisecond.
 * Each hit also drops that key's hits older than the window, so a key holds at most one
 * window of rows.
 */
import type { DatabaseSync } from 'node:sqlite';
import type { AttemptStore } from '../types.ts';
import { method } from './errors.ts';
import type { Transaction } from './transaction.ts';

export function sqliteAttempts(db: DatabaseSync, transaction: Transaction): AttemptStore {
  const forget = db.prepare('DELETE FROM attempts WHERE key = ? AND at <= ?');
  const add = db.prepare(
    `INSERT INTO attempts (key, at, hits) VALUES (?, ?, 1)
     ON CONFLICT (key, at) DO UPDATE SET hits = hits + 1`,
  );
  const sum = db.prepare(
    'SELECT coalesce(sum(hits), 0) AS n FROM attempts WHERE key = ? AND at > ?',
  );
  const reset = db.prepare('DELETE FROM attempts WHERE key = ?');

  return {
    hit: method((key: string, now: number, windowMs: number) =>
      transaction(() => {
        const start = now - windowMs;
        forget.run(key, start);
        add.run(key, now);
        return Number(sum.get(key, start)?.n ?? 0);
      }),
    ),
    reset: method((key: string) => {
      reset.run(key);
    }),
  };
}
