/**
 * Used nonces (RFC 5849 §3.3) in SQLite: an append-only log on disk (nonce-log.ts) for
 * durability and for other processes on the same file, and an index in memory
 * (nonce-index.ts) for the replay check. Only expiry seconds and 64-bit hashes are kept,
 * never the strings.
 *
 * Why a log: a table keyed by the hash puts each new nonce on a random page of the B-tree,
 * so every request dirtied a page of its own (4 KiB of WAL and of checkpoint per request).
 * Appending by sequence number writes a few pages per commit whatever the batch size.
 * A row holds the nonces of one commit (nonce-batch.ts), so a live nonce costs about 9.5
 * bytes on disk, not 22 as a row of its own.
 *
 * Group commit: the nonces of every request that arrives in one turn of the event loop are
 * decided and appended in one write transaction, and each caller's promise settles only
 * after the commit: no request is answered before its nonce is durable.
 *
 * Several processes: the transaction holds SQLite's write lock, and its first step reads
 * every entry other processes appended since this one last looked. So the check and the
 * append are atomic across processes, as an insert-if-absent on a unique key would be.
 */
import type { DatabaseSync } from 'node:sqlite';
import { nonceHashHalves } from '../nonce-hash.ts';
import type { NonceKey, NonceStore } from '../types.ts';
import { method, translateError } from './errors.ts';
import type { NonceEntry } from './nonce-batch.ts';
import type { NonceIndex } from './nonce-index.ts';
import { isBusy, NonceLog } from './nonce-log.ts';
import type { Transaction } from './transaction.ts';

interface Pending extends NonceEntry {
  /** The request's timestamp: what the index groups by (never the window). */
  readonly timestamp: number;
  /** When the request joined a batch (ms), to give up after busy_timeout. */
  readonly since: number;
  readonly resolve: (first: boolean) => void;
  readonly reject: (error: unknown) => void;
}

export function sqliteNonces(
  db: DatabaseSync,
  transaction: Transaction,
  busyTimeoutMs: number,
): NonceStore {
  const log = new NonceLog(db, busyTimeoutMs);
  /** Built from the log on first use (a CLI command that never checks a nonce never loads it). */
  let index: NonceIndex | undefined;
  let pending: Pending[] = [];

  /** Decides and appends a batch, inside its write transaction; its answers, in batch order. */
  function decide(batch: readonly Pending[], live: NonceIndex): boolean[] {
    // Entries other processes appended since our last look (none when we are alone).
    log.absorb(live);
    const accepted = batch.map((p) => live.add(p.timestamp, p.expiresAt, p.high, p.low));
    log.appendAccepted(batch, accepted);
    return accepted;
  }

  /**
   * Commits every pending nonce. The write lock is tried without waiting: while another
   * connection holds it (the checkpoint worker emptying the WAL, a CLI command), the event
   * loop stays free to read and verify more requests, and the batch is retried a moment
   * later, up to busy_timeout, then fails as the store would have.
   */
  function commitPending(): void {
    const batch = pending;
    pending = [];
    let answers: boolean[];
    let began = false;
    try {
      const live = (index ??= log.loadIndex());
      answers = log.withoutWaiting(() =>
        transaction(() => {
          // The write lock is held from here: a failure now is not a busy lock to retry.
          began = true;
          return decide(batch, live);
        }),
      );
    } catch (error) {
      if (!began && isBusy(error) && Date.now() - batch[0]!.since < busyTimeoutMs) {
        pending = batch;
        setTimeout(commitPending, 1);
        return;
      }
      // The index may hold entries of the rolled-back batch: rebuild it from the log.
      if (began) index = undefined;
      const translated = translateError(error);
      for (const p of batch) p.reject(translated);
      return;
    }
    batch.forEach((p, i) => p.resolve(answers[i]!));
  }

  return {
    remember(key: NonceKey, expiresAt: number): Promise<boolean> {
      const { high, low } = nonceHashHalves(key);
      return new Promise((resolve, reject) => {
        // After this turn's I/O callbacks: every request read in this turn joins the batch.
        if (pending.length === 0) setImmediate(commitPending);
        pending.push({
          expiresAt,
          timestamp: key.timestamp,
          windowSeconds: expiresAt - key.timestamp,
          high,
          low,
          since: Date.now(),
          resolve,
          reject,
        });
      });
    },
    async purgeExpired(now: number): Promise<number> {
      try {
        const dropped = index?.purge(now);
        const deleted = await log.purge(now);
        return dropped ?? deleted;
      } catch (error) {
        throw translateError(error);
      }
    },
    // Entries not yet purged; from the log when this process has not loaded the index.
    size: method(() => index?.size ?? log.count()),
  };
}
