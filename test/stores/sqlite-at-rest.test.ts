// What the embedded store leaves on disk: the data directory only its owner may enter, the
// database and its -wal and -shm files only its owner may read (a world-readable file hands
// every secret and verifier to any local account).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createSqliteStore } from '../../src/store/index.ts';
import { newClient } from './contract/fixtures.ts';

const directory = mkdtempSync(join(tmpdir(), 'latchkey-at-rest-'));
after(() => rmSync(directory, { recursive: true, force: true }));

function modeOf(path: string): number {
  return statSync(path).mode & 0o777;
}

describe('SQLite store: file modes', () => {
  let previousUmask = 0;
  // The usual umask, under which a plain create gives -rw-r--r-- and drwxr-xr-x.
  before(() => {
    previousUmask = process.umask(0o022);
  });
  after(() => process.umask(previousUmask));

  it('creates the data directory 0700 and the database, -wal and -shm 0600', async () => {
    const dataDirectory = join(directory, randomUUID(), 'data');
    const path = join(dataDirectory, 'latchkey.db');
    const store = createSqliteStore({ path });
    try {
      await store.clients.create(newClient());
      assert.equal(existsSync(`${path}-wal`), true);
      assert.equal(existsSync(`${path}-shm`), true);
      assert.equal(modeOf(dataDirectory).toString(8), '700');
      for (const file of [path, `${path}-wal`, `${path}-shm`]) {
        assert.equal(modeOf(file).toString(8), '600', file);
      }
    } finally {
      await store.close();
    }
  });

  it('takes group and world access away from a database file an older version left readable', async () => {
    const path = join(directory, `${randomUUID()}.db`);
    await createSqliteStore({ path }).close();
    chmodSync(path, 0o644);
    writeFileSync(`${path}-wal`, '', { mode: 0o644 });
    const store = createSqliteStore({ path });
    try {
      await store.clients.create(newClient());
      for (const file of [path, `${path}-wal`, `${path}-shm`]) {
        assert.equal(modeOf(file).toString(8), '600', file);
      }
    } finally {
      await store.close();
    }
  });
});
