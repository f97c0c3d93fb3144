/**
 * Runs a synchronous body in one write transaction. BEGIN IMMEDIATE takes the write lock at
 * the start, so another process (the CLI beside the server) waits on busy_timeout instead of
 * failing half-way when a read lock cannot be upgraded. The body never awaits, so no other
 * call of this process can interleave with it.
 */
import type { DatabaseSync } from 'node:sqlite';

export type Transaction = <T>(body: () => T) => T;

export function transactionOn(db: DatabaseSync): Transaction {
  const begin = db.prepare('BEGIN IMMEDIATE');
  const commit = db.prepare('COMMIT');
  const rollback = db.prepare('ROLLBACK');
  return (body) => {
    begin.run();
    try {
      const result = body();
      commit.run();
      return result;
    } catch (error) {
      if (db.isTransaction) rollback.run();
      throw error;
    }
  };
}
