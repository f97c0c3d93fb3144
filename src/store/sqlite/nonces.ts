/**
 * Used nonces (RFC 5849 §3.3) in SQLite: an append-only log on disk for durability and for
 * other processes on the same file, and an index in memory (nonce-index.ts) for the replay
 * check. Only expiry seconds and 64-bit hashes are kept, never the strings.
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
import { encodeRows, ENTRY_BYTES, forEachEntry } from './nonce-batch.ts';
import { NonceIndex } from './nonce-index.ts';
import type { Transaction } from './transaction.ts';

interface Pending {
  readonly expiresAt: number;
  /** The request's timestamp: what the index groups by (never the window). */
  readonly timestamp: number;
  readonly windowSeconds: number;
  readonly high: number;
  readonly low: number;
  /** When the request joined a batch (ms), to give up after busy_timeout. */
  readonly since: number;
  readonly resolve: (first: boolean) => void;
  readonly reject: (error: unknown) => void;
}

/** A log row as read: [seq, expires_at (the latest of its entries), entries, window_seconds]. */
type LogRow = [number, number, Uint8Array, number | null];

/**
 * The window assumed for rows written before the log recorded one: the default, which is
 * what almost every deployment ran (a row lives one window, so this matters only just after
 * the upgrade).
 */
const LEGACY_WINDOW_SECONDS = 300;

/** One chunk of the log's head, as a purge measures it. */
interface ChunkSummary {
  readonly rows: number;
  readonly last: number | null;
  readonly live: number;
  /** Nonces in the chunk's rows that a delete would remove. */
  readonly expired: number;
}

/** Log rows read per statement when building or refreshing the index. */
const READ_CHUNK = 10_000;

/** Rows a purge looks at per statement, so it never holds the write lock for long. */
const PURGE_CHUNK = 4096;
/** Live rows in a chunk that mark the start of the live part of the log (1.5 %). */
const LIVE_ROWS = 64;

/** SQLITE_BUSY, whatever the extended code. */
function isBusy(error: unknown): boolean {
  return error instanceof Error && 'errcode' in error && (Number(error.errcode) & 0xff) === 5;
}

export function sqliteNonces(
  db: DatabaseSync,
  transaction: Transaction,
  busyTimeoutMs: number,
): NonceStore {
  const noWait = db.prepare('PRAGMA busy_timeout = 0');
  const wait = db.prepare(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
  // Arrays, in chunks: building the index from millions of nonces is mostly this read.
  const readSince = db.prepare(
    `SELECT seq, expires_at, entries, window_seconds FROM nonce_batches WHERE seq > ? ORDER BY seq LIMIT ${READ_CHUNK}`,
  );
  readSince.setReturnArrays(true);
  const append = db.prepare(
    'INSERT INTO nonce_batches (expires_at, entries, window_seconds) VALUES (?, ?, ?)',
  );
  // Never the newest row: seq is the rowid, and SQLite would reuse a deleted maximum.
  const deletable = 'expires_at < :now AND seq < (SELECT max(seq) FROM nonce_batches)';
  const measureChunk = db.prepare(
    'SELECT count(*) AS rows, max(seq) AS last, coalesce(sum(expires_at >= :now), 0) AS live, ' +
      `coalesce(sum(CASE WHEN ${deletable} THEN length(entries) END), 0) / ${ENTRY_BYTES} AS expired ` +
      `FROM (SELECT seq, expires_at, entries FROM nonce_batches WHERE seq >= :from ORDER BY seq LIMIT ${PURGE_CHUNK})`,
  );
  const deleteExpired = db.prepare(
    `DELETE FROM nonce_batches WHERE seq >= :from AND seq <= :last AND ${deletable}`,
  );
  const count = db.prepare(
    `SELECT coalesce(sum(length(entries)), 0) / ${ENTRY_BYTES} AS n FROM nonce_batches`,
  );

  /** Runs a write with busy_timeout 0: SQLITE_BUSY at once instead of sleeping on the lock. */
  function withoutWaiting<T>(write: () => T): T {
    noWait.run();
    try {
      return write();
    } finally {
      wait.run();
    }
  }

  /** Built from the log on first use (a CLI command that never checks a nonce never loads it). */
  let index: NonceIndex | undefined;
  /** The last log entry the index holds. */
  let seen = 0;
  let pending: Pending[] = [];

  /** Adds every entry after `seen` to the index. */
  function absorb(target: NonceIndex): void {
    for (;;) {
      const rows = readSince.all(seen) as unknown as LogRow[];
      for (const [seq, expiresAt, entries, window] of rows) {
        const windowSeconds = window ?? LEGACY_WINDOW_SECONDS;
        forEachEntry(expiresAt, entries, (entryExpiry, high, low) =>
          target.add(entryExpiry - windowSeconds, entryExpiry, high, low),
        );
        seen = seq;
      }
      if (rows.length < READ_CHUNK) return;
    }
  }

  /** Appends the accepted nonces of a batch. */
  function appendAccepted(batch: readonly Pending[], answers: readonly boolean[]): void {
    const accepted = batch.filter((_, i) => answers[i]);
    for (const row of encodeRows(accepted)) {
      seen = Number(append.run(row.expiresAt, row.entries, row.windowSeconds).lastInsertRowid);
    }
  }

  function loadedIndex(): NonceIndex {
    if (index !== undefined) return index;
    const fresh = new NonceIndex();
    seen = 0;
    // One read transaction: a consistent snapshot that does not block writers (WAL).
    db.exec('BEGIN');
    try {
      absorb(fresh);
    } finally {
      db.exec('COMMIT');
    }
    index = fresh;
    return fresh;
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
      const live = loadedIndex();
      answers = withoutWaiting(() =>
        transaction(() => {
          began = true;
          // Entries other processes appended since our last look (none when we are alone).
          absorb(live);
          const accepted = batch.map((p) => live.add(p.timestamp, p.expiresAt, p.high, p.low));
          appendAccepted(batch, accepted);
          return accepted;
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

  /**
   * Deletes expired rows from the head of the log, a chunk per turn of the event loop. Rows
   * are in arrival order, so nearly in expiry order: the purge stops at the first chunk with
   * more than a few live rows, where the live part of the log begins. A live row among
   * expired ones (a client clock running ahead) stays, and is passed over by the next purge.
   * SQLite sums each chunk itself, so no row reaches JavaScript.
   */
  async function purgeLog(now: number): Promise<number> {
    let deleted = 0;
    let from = Number.MIN_SAFE_INTEGER;
    for (;;) {
      const chunk = measureChunk.get({ now, from }) as ChunkSummary | undefined;
      if (chunk === undefined || chunk.rows === 0 || chunk.last === null) return deleted;
      const last = chunk.last;
      // Without waiting for the write lock, as commits do: what a held lock leaves is
      // deleted by the next purge.
      try {
        withoutWaiting(() => deleteExpired.run({ from, last, now }));
        deleted += chunk.expired;
      } catch (error) {
        if (isBusy(error)) return deleted;
        throw error;
      }
      if (chunk.live > LIVE_ROWS || chunk.rows < PURGE_CHUNK) return deleted;
      from = last + 1;
      await new Promise((resolve) => setImmediate(resolve));
    }
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
        const deleted = await purgeLog(now);
        return dropped ?? deleted;
      } catch (error) {
        throw translateError(error);
      }
    },
    // Entries not yet purged; from the log when this process has not loaded the index.
    size: method(() => index?.size ?? Number(count.get()?.n ?? 0)),
  };
}
