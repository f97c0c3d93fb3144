/**
 * Used nonces (RFC 5849 §3.3) in PostgreSQL, kept as (expires_at, 64-bit hash) only, as in the
 * SQLite adapter. A replay has the same key, hence the same hash, and conflicts with the first
 * use on the unique index on the hash (the expiry is not part of it: instances with different
 * timestamp windows compute different expiries for one request): INSERT … ON CONFLICT DO
 * NOTHING is the atomic insert-if-absent, whichever instance sees the replay.
 */
import { nonceHash } from '../nonce-hash.ts';
import type { NonceKey, NonceStore } from '../types.ts';
import type { Database } from './database.ts';
import { int } from './row.ts';

export function postgresNonces(db: Database): NonceStore {
  const nonces = db.table('nonces');

  return {
    async remember(key: NonceKey, expiresAt: number) {
      const result = await db.query(
        `INSERT INTO ${nonces} (expires_at, hash) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
        [expiresAt, nonceHash(key).toString()],
      );
      return result.count > 0;
    },
    // A range scan on the primary key's leading column.
    async purgeExpired(now: number) {
      return (await db.query(`DELETE FROM ${nonces} WHERE expires_at < $1`, [now])).count;
    },
    async size() {
      const { rows } = await db.query(`SELECT count(*) AS n FROM ${nonces}`);
      return rows[0] === undefined ? 0 : int(rows[0], 'n');
    },
  };
}
