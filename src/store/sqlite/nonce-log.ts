/**
 * The SQLite nonce log (nonces.ts explains why a log): its statements, reading what other
 * processes appended into the in-memory index, appending a commit's accepted nonces, and
 * purging expired rows from its head. Each method runs inside whatever transaction its
 * caller holds; none awaits but the purge, between chunks.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { encodeRows, ENTRY_BYTES, forEachEntry, type NonceEntry } from './nonce-batch.ts';
import { NonceIndex } from './nonce-index.ts';

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
export function isBusy(error: unknown): boolean {
  return error instanceof Error && 'errcode' in error && (Number(error.errcode) & 0xff) === 5;
}

export class NonceLog {
  /** The last log entry the index holds. */
  #seen = 0;
  readonly #db: DatabaseSync;
  readonly #noWait: StatementSync;
  readonly #wait: StatementSync;
  readonly #readSince: StatementSync;
  readonly #append: StatementSync;
  readonly #measureChunk: StatementSync;
  readonly #deleteExpired: StatementSync;
  readonly #count: StatementSync;

  constructor(db: DatabaseSync, busyTimeoutMs: number) {
    this.#db = db;
    this.#noWait = db.prepare('PRAGMA busy_timeout = 0');
    this.#wait = db.prepare(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    // Arrays, in chunks: building the index from millions of nonces is mostly this read.
    this.#readSince = db.prepare(
      `SELECT seq, expires_at, entries, window_seconds FROM nonce_batches WHERE seq > ? ORDER BY seq LIMIT ${READ_CHUNK}`,
    );
    this.#readSince.setReturnArrays(true);
    this.#append = db.prepare(
      'INSERT INTO nonce_batches (expires_at, entries, window_seconds) VALUES (?, ?, ?)',
    );
    // Never the newest row: seq is the rowid, and SQLite would reuse a deleted maximum.
    const deletable = 'expires_at < :now AND seq < (SELECT max(seq) FROM nonce_batches)';
    this.#measureChunk = db.prepare(
      'SELECT count(*) AS rows, max(seq) AS last, coalesce(sum(expires_at >= :now), 0) AS live, ' +
        `coalesce(sum(CASE WHEN ${deletable} THEN length(entries) END), 0) / ${ENTRY_BYTES} AS expired ` +
        `FROM (SELECT seq, expires_at, entries FROM nonce_batches WHERE seq >= :from ORDER BY seq LIMIT ${PURGE_CHUNK})`,
    );
    this.#deleteExpired = db.prepare(
      `DELETE FROM nonce_batches WHERE seq >= :from AND seq <= :last AND ${deletable}`,
    );
    this.#count = db.prepare(
      `SELECT coalesce(sum(length(entries)), 0) / ${ENTRY_BYTES} AS n FROM nonce_batches`,
    );
  }

  /** Runs a write with busy_timeout 0: SQLITE_BUSY at once instead of sleeping on the lock. */
  withoutWaiting<T>(write: () => T): T {
    this.#noWait.run();
    try {
      return write();
    } finally {
      this.#wait.run();
    }
  }

  /** A new index of every entry in the log, read in one snapshot. */
  loadIndex(): NonceIndex {
    const fresh = new NonceIndex();
    this.#seen = 0;
    // One read transaction: a consistent snapshot that does not block writers (WAL).
    this.#db.exec('BEGIN');
    try {
      this.absorb(fresh);
    } finally {
      this.#db.exec('COMMIT');
    }
    return fresh;
  }

  /** Adds every entry after the last one seen to the index. */
  absorb(target: NonceIndex): void {
    for (;;) {
      const rows = this.#readSince.all(this.#seen) as unknown as LogRow[];
      for (const [seq, expiresAt, entries, window] of rows) {
        const windowSeconds = window ?? LEGACY_WINDOW_SECONDS;
        forEachEntry(expiresAt, entries, (entryExpiry, high, low) =>
          target.add(entryExpiry - windowSeconds, entryExpiry, high, low),
        );
        this.#seen = seq;
      }
      if (rows.length < READ_CHUNK) return;
    }
  }

  /** Appends the accepted entries of a batch. */
  appendAccepted(batch: readonly NonceEntry[], answers: readonly boolean[]): void {
    const accepted = batch.filter((_, i) => answers[i]);
    for (const row of encodeRows(accepted)) {
      this.#seen = Number(
        this.#append.run(row.expiresAt, row.entries, row.windowSeconds).lastInsertRowid,
      );
    }
  }

  /** Nonces in the log, expired or not (read from disk). */
  count(): number {
    return Number(this.#count.get()?.n ?? 0);
  }

  /**
   * Deletes expired rows from the head of the log, a chunk per turn of the event loop. Rows
   * are in arrival order, so nearly in expiry order: the purge stops at the first chunk with
   * more than a few live rows, where the live part of the log begins. A live row among
   * expired ones (a client clock running ahead) stays, and is passed over by the next purge.
   * SQLite sums each chunk itself, so no row reaches JavaScript.
   */
  async purge(now: number): Promise<number> {
    let deleted = 0;
    let from = Number.MIN_SAFE_INTEGER;
    for (;;) {
      const chunk = this.#measureChunk.get({ now, from }) as ChunkSummary | undefined;
      if (chunk === undefined || chunk.rows === 0 || chunk.last === null) return deleted;
      const last = chunk.last;
      // Without waiting for the write lock, as commits do: what a held lock leaves is
      // deleted by the next purge.
      try {
        this.withoutWaiting(() => this.#deleteExpired.run({ from, last, now }));
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
}
