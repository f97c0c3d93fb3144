/**
 * Used nonces (RFC 5849 §3.3) in SQLite, kept as (expires_at, 64-bit hash) only: about 20
 * bytes a row on disk (bench/nonce-size.ts measures it). A replay has the same key, hence the
 * same hash and expiry (the provider derives expiry from the request's timestamp), and so
 * conflicts with the first use on the primary key.
 *
 * Group commit: the nonces of every request that arrives in one turn of the event loop are
 * inserted in one transaction, so a busy server pays for one commit per turn rather than one
 * per request. Each insert is still insert-if-absent, and each caller's promise settles only
 * after the commit: no request is answered before its nonce is durable.
 */
import type { DatabaseSync } from 'node:sqlite';
import { nonceHash } from '../nonce-hash.ts';
import type { NonceKey, NonceStore } from '../types.ts';
import { method, translateError } from './errors.ts';
import type { Transaction } from './transaction.ts';

interface Pending {
  readonly expiresAt: number;
  readonly hash: bigint;
  readonly resolve: (first: boolean) => void;
  readonly reject: (error: unknown) => void;
}

export function sqliteNonces(db: DatabaseSync, transaction: Transaction): NonceStore {
  const insert = db.prepare(
    'INSERT INTO nonces (expires_at, hash) VALUES (?, ?) ON CONFLICT DO NOTHING',
  );
  // A range delete on the primary-key prefix: no index besides the table itself.
  const purge = db.prepare('DELETE FROM nonces WHERE expires_at < ?');
  const count = db.prepare('SELECT count(*) AS n FROM nonces');
  let pending: Pending[] = [];

  function commitPending(): void {
    const batch = pending;
    pending = [];
    let results: boolean[];
    try {
      results = transaction(() => batch.map((p) => insert.run(p.expiresAt, p.hash).changes > 0));
    } catch (error) {
      const translated = translateError(error);
      for (const p of batch) p.reject(translated);
      return;
    }
    batch.forEach((p, i) => p.resolve(results[i]!));
  }

  return {
    remember(key: NonceKey, expiresAt: number): Promise<boolean> {
      return new Promise((resolve, reject) => {
        // After this turn's I/O callbacks: every request read in this turn joins the batch.
        if (pending.length === 0) setImmediate(commitPending);
        pending.push({ expiresAt, hash: nonceHash(key), resolve, reject });
      });
    },
    purgeExpired: method((now: number) => Number(purge.run(now).changes)),
    size: method(() => Number(count.get()?.n ?? 0)),
  };
}
