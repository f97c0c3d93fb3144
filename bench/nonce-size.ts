// Measures what a live nonce costs in the SQLite store (RFC 5849 §3.3 "remember every nonce
// within the window"): remembers N nonces through the store's own API into a fresh file, as
// a steady request stream would, checkpoints, and divides the file's pages by the rows.
//
//   node bench/nonce-size.ts [count=1000000] [requestsPerSecond=2000] [clockSkewSeconds=30]
//
// Memory is not per nonce: SQLite keeps a bounded page cache (cache_size, 2 MB by default)
// whatever the table holds, so the file is the whole per-nonce cost.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { createSqliteStore } from '../src/store/index.ts';

const count = Number(process.argv[2] ?? 1_000_000);
const rate = Number(process.argv[3] ?? 2_000);
const skew = Number(process.argv[4] ?? 30);
const window = 300;

const directory = mkdtempSync(join(tmpdir(), 'latchkey-nonce-size-'));
const path = join(directory, 'nonces.db');
try {
  const store = createSqliteStore({ path });
  const clients = Array.from({ length: 100 }, () => `client-${randomUUID()}`);
  const started = performance.now();
  const start = 1_750_000_000;
  for (let i = 0; i < count; i += 1) {
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
    await store.nonces.remember(key, timestamp + window);
  }
  const seconds = (performance.now() - started) / 1000;
  const rows = await store.nonces.size();
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
        rows,
        pageSize,
        pageCount,
        freePages,
        fileBytes: statSync(path).size,
        bytesPerNonce: Number((bytes / rows).toFixed(2)),
        noncesPerSecond: Math.round(count / seconds),
      },
      null,
      2,
    ),
  );
} finally {
  rmSync(directory, { recursive: true, force: true });
}
