// The SQLite store's nonces (src/store/sqlite/nonces.ts): an append-only log on disk with an
// index in memory. What only this layout has to prove beyond the shared contract: other
// processes' entries are seen, purging keeps live rows and leaves the event loop free, and
// nonces stored by the first schema survive the migration.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, describe, it } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  createSqliteStore,
  nonceHash,
  StoreUnavailableError,
  type NonceKey,
} from '../../src/store/index.ts';
import { applyMigration, migrations } from '../../src/store/sqlite/migrations.ts';
import { ENTRY_BYTES } from '../../src/store/sqlite/nonce-batch.ts';

const directory = mkdtempSync(join(tmpdir(), 'latchkey-nonce-log-'));
after(() => rmSync(directory, { recursive: true, force: true }));

/**
 * A busy_timeout no test outlives. The lock holder below is a connection on this thread: a
 * store that slept in SQLite's busy handler would never let it release the lock, so it would
 * hang instead of passing, whatever the machine's speed.
 */
const FOREVER_MS = 2 ** 31 - 1;

const freshPath = () => join(directory, `${randomUUID()}.db`);
/** A nonce key; its timestamp is its expiry less the window (300 s, as the callers use). */
const key = (nonce: string, timestamp: number): NonceKey => ({
  clientKey: 'client',
  token: 'token',
  timestamp,
  nonce,
});

function inFile(path: string): { rows: number; nonces: number } {
  const db = new DatabaseSync(path);
  try {
    const row = db
      .prepare(
        'SELECT count(*) AS rows, coalesce(sum(length(entries)), 0) AS bytes FROM nonce_batches',
      )
      .get();
    return { rows: Number(row?.rows), nonces: Number(row?.bytes) / ENTRY_BYTES };
  } finally {
    db.close();
  }
}
const noncesIn = (path: string) => inFile(path).nonces;

/** Remembers `count` nonces with the given prefix, each in a commit of its own. */
async function oneByOne(
  nonces: { remember(key: NonceKey, expiresAt: number): Promise<boolean> },
  count: number,
  prefix: string,
  expiresAt: number,
): Promise<void> {
  for (let i = 0; i < count; i++)
    await nonces.remember(key(`${prefix}${i}`, expiresAt - 300), expiresAt);
}

describe('SQLite nonce log', () => {
  it('refuses a nonce that another process appended after this one loaded its index', async () => {
    const path = freshPath();
    const server = createSqliteStore({ path, checkpointIntervalMs: 0 });
    const other = createSqliteStore({ path, checkpointIntervalMs: 0 });
    try {
      assert.equal(await server.nonces.remember(key('loads the index', 1_700), 2_000), true);
      assert.equal(await other.nonces.remember(key('shared', 1_700), 2_000), true);
      assert.equal(await server.nonces.remember(key('shared', 1_700), 2_000), false);
      assert.equal(await other.nonces.remember(key('loads the index', 1_700), 2_000), false);
    } finally {
      await server.close();
      await other.close();
    }
  });

  it("still sees another process's entries after a purge emptied the log of expired rows", async () => {
    const path = freshPath();
    const server = createSqliteStore({ path, checkpointIntervalMs: 0 });
    const other = createSqliteStore({ path, checkpointIntervalMs: 0 });
    try {
      await Promise.all(
        Array.from({ length: 10 }, (_, i) => server.nonces.remember(key(`old${i}`, 200), 500)),
      );
      await server.nonces.purgeExpired(1_000);
      assert.equal(await other.nonces.remember(key('after the purge', 1_700), 2_000), true);
      assert.equal(await server.nonces.remember(key('after the purge', 1_700), 2_000), false);
    } finally {
      await server.close();
      await other.close();
    }
  });

  it('waits for a write lock held elsewhere without blocking the event loop, then commits', async () => {
    const path = freshPath();
    const store = createSqliteStore({ path, checkpointIntervalMs: 0, busyTimeoutMs: FOREVER_MS });
    const holder = new DatabaseSync(path);
    try {
      await store.nonces.remember(key('creates the file and the index', 1_700), 2_000);
      holder.exec('BEGIN IMMEDIATE');
      let settled = false;
      const answer = store.nonces
        .remember(key('while locked', 1_700), 2_000)
        .finally(() => (settled = true));
      // The batch tried to commit in the turn that just ended, and found the lock held.
      await nextTurn();
      assert.equal(settled, false, 'still waiting for the lock, with the event loop free');
      holder.exec('COMMIT');
      assert.equal(await answer, true);
      assert.equal(await store.nonces.remember(key('while locked', 1_700), 2_000), false);
    } finally {
      holder.close();
      await store.close();
    }
  });

  it('gives up with StoreUnavailableError once the lock has been held past busy_timeout', async () => {
    const path = freshPath();
    const store = createSqliteStore({ path, checkpointIntervalMs: 0, busyTimeoutMs: 100 });
    const holder = new DatabaseSync(path);
    try {
      await store.nonces.remember(key('creates the file and the index', 1_700), 2_000);
      holder.exec('BEGIN IMMEDIATE');
      await assert.rejects(
        store.nonces.remember(key('never', 1_700), 2_000),
        StoreUnavailableError,
      );
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
      await store.close();
    }
  });

  it('leaves the rows to the next purge rather than wait for a write lock held elsewhere', async () => {
    const path = freshPath();
    const store = createSqliteStore({ path, checkpointIntervalMs: 0, busyTimeoutMs: FOREVER_MS });
    const holder = new DatabaseSync(path);
    try {
      await Promise.all(
        Array.from({ length: 100 }, (_, i) => store.nonces.remember(key(`old${i}`, 200), 500)),
      );
      await store.nonces.remember(key('live', 1_700), 2_000);
      holder.exec('BEGIN IMMEDIATE');
      // Answers while the lock is still held (waiting for it would never end: FOREVER_MS).
      assert.equal(await store.nonces.purgeExpired(1_000), 100, 'dropped from memory at once');
      assert.equal(noncesIn(path), 101, 'the rows are left to the next purge');
      holder.exec('COMMIT');
      assert.equal(noncesIn(path), 101);
      await store.nonces.purgeExpired(1_000);
      assert.equal(noncesIn(path), 1, 'the next purge deleted them');
    } finally {
      holder.close();
      await store.close();
    }
  });

  it('keeps every nonce across close and reopen', async () => {
    const path = freshPath();
    const first = createSqliteStore({ path, checkpointIntervalMs: 0 });
    await Promise.all(
      Array.from({ length: 100 }, (_, i) => first.nonces.remember(key(`n${i}`, 1_700), 2_000)),
    );
    await first.close();
    const second = createSqliteStore({ path, checkpointIntervalMs: 0 });
    try {
      const replays = await Promise.all(
        Array.from({ length: 100 }, (_, i) => second.nonces.remember(key(`n${i}`, 1_700), 2_000)),
      );
      assert.ok(replays.every((first) => !first));
    } finally {
      await second.close();
    }
  });

  it('purges expired rows from the file and keeps a live row that arrived among them', async () => {
    const path = freshPath();
    const store = createSqliteStore({ path, checkpointIntervalMs: 0 });
    // A client whose clock runs ahead: its nonce lives longer than the ones after it.
    await store.nonces.remember(key('ahead', 5_000), 10_000);
    await Promise.all(
      Array.from({ length: 10_000 }, (_, i) => store.nonces.remember(key(`old${i}`, 200), 500)),
    );
    await Promise.all(
      Array.from({ length: 100 }, (_, i) => store.nonces.remember(key(`live${i}`, 9_700), 10_000)),
    );
    assert.equal(await store.nonces.purgeExpired(1_000), 10_000);
    await store.close();
    assert.equal(noncesIn(path), 101);
    const reopened = createSqliteStore({ path, checkpointIntervalMs: 0 });
    try {
      assert.equal(await reopened.nonces.remember(key('ahead', 5_000), 10_000), false);
      assert.equal(await reopened.nonces.remember(key('live7', 9_700), 10_000), false);
    } finally {
      await reopened.close();
    }
  });

  it('purges in chunks, letting other work run in between', async () => {
    const path = freshPath();
    const store = createSqliteStore({ path, checkpointIntervalMs: 0 });
    try {
      // Rows for more than two chunks of the purge (4,096 each): a commit each.
      await oneByOne(store.nonces, 10_000, 'old', 500);
      await store.nonces.remember(key('live', 1_700), 2_000);
      let otherWorkRan = false;
      const purge = store.nonces.purgeExpired(1_000);
      setImmediate(() => (otherWorkRan = true));
      assert.equal(await purge, 10_000);
      assert.equal(otherWorkRan, true);
      assert.deepEqual(inFile(path), { rows: 1, nonces: 1 });
    } finally {
      await store.close();
    }
  });

  it('writes the nonces of one commit as one row', async () => {
    const path = freshPath();
    const store = createSqliteStore({ path, checkpointIntervalMs: 0 });
    try {
      await Promise.all(
        Array.from({ length: 300 }, (_, i) =>
          store.nonces.remember(key(`n${i}`, 1_700 + i), 2_000 + i),
        ),
      );
      assert.deepEqual(inFile(path), { rows: 2, nonces: 300 }, 'expiries 256 s apart and more');
    } finally {
      await store.close();
    }
  });

  it('gives each nonce of a row its own expiry back after a restart', async () => {
    const path = freshPath();
    const first = createSqliteStore({ path, checkpointIntervalMs: 0 });
    await Promise.all([
      first.nonces.remember(key('early', 1_700), 2_000),
      first.nonces.remember(key('late', 1_800), 2_100),
    ]);
    await first.close();
    const second = createSqliteStore({ path, checkpointIntervalMs: 0 });
    try {
      assert.equal(await second.nonces.remember(key('late', 1_800), 2_100), false);
      assert.equal(await second.nonces.purgeExpired(2_001), 1, 'the early one, from the index');
      assert.equal(await second.nonces.remember(key('early', 1_700), 2_000), true, 'purged');
      assert.equal(await second.nonces.remember(key('late', 1_800), 2_100), false, 'kept');
    } finally {
      await second.close();
    }
  });

  it('writes nothing for a replay refused within the same commit', async () => {
    const path = freshPath();
    const store = createSqliteStore({ path, checkpointIntervalMs: 0 });
    try {
      const answers = await Promise.all([
        store.nonces.remember(key('twice', 1_700), 2_000),
        store.nonces.remember(key('twice', 1_700), 2_000),
      ]);
      assert.deepEqual(answers, [true, false]);
      assert.deepEqual(inFile(path), { rows: 1, nonces: 1 });
    } finally {
      await store.close();
    }
  });

  // Both signs of the 64-bit hash: the migration to batches writes them as hex in SQL.
  const stored = Array.from({ length: 40 }, (_, i) =>
    key(`before the upgrade ${i}`, 1_700 + (i % 2)),
  );
  assert.ok(stored.some((k) => nonceHash(k) < 0n) && stored.some((k) => nonceHash(k) >= 0n));

  for (const [version, table] of [
    [1, 'nonces'],
    [2, 'nonce_log'],
  ] as const) {
    it(`carries nonces stored by schema version ${version} into the log, so their replays stay refused`, async () => {
      const path = freshPath();
      const db = new DatabaseSync(path);
      for (const migration of migrations.slice(0, version)) applyMigration(db, migration);
      db.exec(`PRAGMA user_version = ${version}`);
      const insert = db.prepare(`INSERT INTO ${table} (expires_at, hash) VALUES (?, ?)`);
      stored.forEach((k, i) => insert.run(2_000 + (i % 2), nonceHash(k)));
      db.close();
      const store = createSqliteStore({ path, checkpointIntervalMs: 0 });
      try {
        const replays = await Promise.all(
          stored.map((k, i) => store.nonces.remember(k, 2_000 + (i % 2))),
        );
        assert.ok(replays.every((first) => !first));
        assert.equal(await store.nonces.remember(key('after the upgrade', 1_700), 2_000), true);
        assert.equal(await store.nonces.size(), stored.length + 1);
      } finally {
        await store.close();
      }
      assert.deepEqual(inFile(path), { rows: 3, nonces: stored.length + 1 });
    });
  }
});
