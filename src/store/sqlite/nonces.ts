/**
 * Used nonces (RFC 5849 §3.3) in SQLite, kept as (expires_at, 64-bit hash) only: about 20
 * bytes a row on disk (bench/nonce-size.ts measures it). A replay has the same key, hence the
 * same hash and expiry (the provider derives expiry from the request's timestamp), and so
 * conflicts with the first use on the primary key.
 */
import type { DatabaseSync } from 'node:sqlite';
import { nonceHash } from '../nonce-hash.ts';
import type { NonceKey, NonceStore } from '../types.ts';
import { method } from './errors.ts';

export function sqliteNonces(db: DatabaseSync): NonceStore {
  const insert = db.prepare(
    'INSERT INTO nonces (expires_at, hash) VALUES (?, ?) ON CONFLICT DO NOTHING',
  );
  // A range delete on the primary-key prefix: no index besides the table itself.
  const purge = db.prepare('DELETE FROM nonces WHERE expires_at < ?');
  const count = db.prepare('SELECT count(*) AS n FROM nonces');

  return {
    remember: method(
      (key: NonceKey, expiresAt: number) => insert.run(expiresAt, nonceHash(key)).changes > 0,
    ),
    purgeExpired: method((now: number) => Number(purge.run(now).changes)),
    size: method(() => Number(count.get()?.n ?? 0)),
  };
}
