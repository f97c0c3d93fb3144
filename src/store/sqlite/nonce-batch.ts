/**
 * The on-disk form of the SQLite nonce log's rows (nonces.ts): each row holds the nonces of
 * one commit as 9-byte entries, an expiry offset then the 64-bit hash:
 *
 *   [ max expiry − own expiry: 1 byte ][ hash: 8 bytes, big-endian ]
 *
 * The row's `expires_at` is the latest expiry among its entries; the purge deletes a row once
 * that second has passed, and the index (nonce-index.ts) gets each entry's own expiry back,
 * and its timestamp as the expiry less the row's `window_seconds` (the timestamp window its
 * entries were checked under: entries of different windows go to separate rows). Entries
 * whose expiries lie more than 255 s apart go to separate rows. Clients' clocks
 * differ, so the nonces of one commit rarely share an expiry second, yet a row costs about
 * 10 bytes of SQLite bookkeeping (cell pointer, header, rowid, expiry): shared by a commit's
 * nonces, a live nonce costs about 9.5 bytes on disk instead of 22 as a row of its own.
 */

export const ENTRY_BYTES = 9;
/** The largest expiry offset one byte holds. */
const MAX_OFFSET = 255;

export interface NonceEntry {
  /** Seconds since the epoch. */
  readonly expiresAt: number;
  /** The timestamp window the entry was checked under: its expiry less its timestamp. */
  readonly windowSeconds: number;
  /** The hash's high 32 bits (signed). */
  readonly high: number;
  /** The hash's low 32 bits (signed or unsigned: the same bits). */
  readonly low: number;
}

export interface NonceRow {
  readonly expiresAt: number;
  readonly windowSeconds: number;
  readonly entries: Buffer;
}

/** The rows for one commit's entries: as few as the one-byte offset allows. */
export function encodeRows(entries: readonly NonceEntry[]): NonceRow[] {
  const latestFirst = [...entries].sort(
    (a, b) => a.windowSeconds - b.windowSeconds || b.expiresAt - a.expiresAt,
  );
  const rows: NonceRow[] = [];
  let start = 0;
  while (start < latestFirst.length) {
    const { expiresAt, windowSeconds } = latestFirst[start]!;
    let end = start + 1;
    while (
      end < latestFirst.length &&
      latestFirst[end]!.windowSeconds === windowSeconds &&
      expiresAt - latestFirst[end]!.expiresAt <= MAX_OFFSET
    ) {
      end += 1;
    }
    const buffer = Buffer.allocUnsafe((end - start) * ENTRY_BYTES);
    for (let i = start, at = 0; i < end; i += 1, at += ENTRY_BYTES) {
      const entry = latestFirst[i]!;
      buffer[at] = expiresAt - entry.expiresAt;
      buffer.writeInt32BE(entry.high | 0, at + 1);
      buffer.writeInt32BE(entry.low | 0, at + 5);
    }
    rows.push({ expiresAt, windowSeconds, entries: buffer });
    start = end;
  }
  return rows;
}

/** Calls `visit` with each entry of a row (high and low signed). */
export function forEachEntry(
  expiresAt: number,
  entries: Uint8Array,
  visit: (expiresAt: number, high: number, low: number) => void,
): void {
  const view = new DataView(entries.buffer, entries.byteOffset, entries.byteLength);
  for (let at = 0; at + ENTRY_BYTES <= entries.byteLength; at += ENTRY_BYTES) {
    visit(expiresAt - view.getUint8(at), view.getInt32(at + 1), view.getInt32(at + 5));
  }
}
