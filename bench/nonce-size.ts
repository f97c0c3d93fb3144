// Measures what a live nonce costs in the SQLite store (RFC 5849 §3.3 "remember every nonce
// within the window"): remembers N nonces through the store's own API into a fresh file, as
// a steady request stream would (`batch` requests read in each turn of the event loop, so
// committed together: the log keeps a row per commit and expiry second), checkpoints, and
// divides the file's pages by the nonces. The
// store also keeps each live nonce in an in-memory index (typed arrays outside the JS heap),
// measured as the growth of `process.memoryUsage().arrayBuffers`; SQLite's own page cache is
// bounded (cache_size, 2 MB by default) whatever the log holds.
//
//   node --expose-gc bench/nonce-size.ts [count=1000000] [requestsPerSecond=2000] [clockSkewSeconds=30] [batch=25]
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { createSqliteStore } from '../src/store/index.ts';

const count = Number(process.argv[2] ?? 1_000_000);
const rate = Number(process.argv[3] ?? 2_000);
const skew = Number(process.argv[4] ?? 30);
const batch = Number(process.argv[5] ?? 25);
const window = 300;

const directory = mkdtempSync(join(tmpdir(), 'latchkey-nonce-size-'));
const path = join(directory, 'nonces.db');
try {
  const store = createSqliteStore({ path });
  const clients = Array.from({ length: 100 }, () => `client-${randomUUID()}`);
  const buffersBefore = process.memoryUsage().arrayBuffers;
  const started = performance.now();
  const start = 1_750_000_000;
  const nonceAt = (i: number) => {
    // Requests arrive in time order; each client's clock is off by up to ±skew seconds, so
    // the expiries (timestamp + window) of one second of traffic are spread over 2·skew.
    const second = start + Math.floor(i / rate);
    const timestamp = second + Math.floor((Math.random() * 2 - 1) * skew);
    const key = {
      clientKey: clients[i % clients.length] ?? '',
      token: `token-${i % 5000}`,
      timestamp,
      nonce: randomUUID(),
    };
    return store.nonces.remember(key, timestamp + window);
  };
  for (let i = 0; i < count; i += batch) {
    await Promise.all(Array.from({ length: Math.min(batch, count - i) }, (_, j) => nonceAt(i + j)));
  }
  const seconds = (performance.now() - started) / 1000;
  const rows = await store.nonces.size();
  // Buffers the index outgrew are garbage; collect them when the flag allows it.
  (globalThis as { gc?: () => void }).gc?.();
  const indexBytes = process.memoryUsage().arrayBuffers - buffersBefore;
  await store.close();

  const db = new DatabaseSync(path);
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  const pragma = (name: string) => Number(db.prepare(`PRAGMA ${name}`).get()?.[name] ?? 0);
  const pageSize = pragma('page_size');
  const pageCount = pragma('page_count');
  const freePages = pragma('freelist_count');
  db.close();

  const bytes = pageCount * pageSize;
  console.log(
    JSON.stringify(
      {
        nonces: rows,
        batch,
        pageSize,
        pageCount,
        freePages,
        fileBytes: statSync(path).size,
        bytesPerNonce: Number((bytes / rows).toFixed(2)),
        indexBytesPerNonce: Number((indexBytes / rows).toFixed(2)),
        noncesPerSecond: Math.round(count / seconds),
      },
      null,
      2,
    ),
  );
} finally {
  rmSync(directory, { recursive: true, force: true });
}
