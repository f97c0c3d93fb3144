// The SQLite adapter: the shared store contract against a fresh temporary file, plus what only
// the embedded store promises (docs/architecture.md "State and scale"): WAL, versioned migrations,
// and every acknowledged write kept across close, reopen and `kill -9`.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, describe, it } from 'node:test';
import { createSqliteStore, StoreUnavailableError, type NonceKey } from '../../src/store/index.ts';
import {
  applyMigration,
  applyMigrations,
  migrations,
  schemaVersion,
} from '../../src/store/sqlite/migrations.ts';
import { describeStoreContract } from './contract.ts';
import { newClient, newOwner, newToken } from './contract/fixtures.ts';

const directory = mkdtempSync(join(tmpdir(), 'latchkey-sqlite-'));
after(() => rmSync(directory, { recursive: true, force: true }));

function freshPath(): string {
  return join(directory, `${randomUUID()}.db`);
}

const contractPath = freshPath();
describeStoreContract('SQLite', async () => createSqliteStore({ path: contractPath }));

/** Reads one value with a plain connection, beside the store. */
function inspect<T>(path: string, read: (db: DatabaseSync) => T): T {
  const db = new DatabaseSync(path);
  try {
    return read(db);
  } finally {
    db.close();
  }
}

describe('SQLite store: the file', () => {
  it('creates the directory of a new database file', async () => {
    const path = join(directory, randomUUID(), 'nested', 'latchkey.db');
    const store = createSqliteStore({ path });
    assert.equal(await store.ping(), true);
    await store.close();
  });

  it('puts the database in WAL mode', async () => {
    const path = freshPath();
    await createSqliteStore({ path }).close();
    const mode = inspect(path, (db) => db.prepare('PRAGMA journal_mode').get()?.journal_mode);
    assert.equal(mode, 'wal');
  });

  it('keeps data across close and reopen', async () => {
    const path = freshPath();
    const first = createSqliteStore({ path });
    const client = await first.clients.create(newClient());
    const owner = await first.owners.create(newOwner());
    const token = await first.tokenCredentials.create(newToken(client.key, owner.id));
    await first.close();
    const second = createSqliteStore({ path });
    assert.deepEqual(await second.clients.find(client.key), client);
    assert.deepEqual(await second.tokenCredentials.find(token.token), token);
    await second.close();
  });

  it('stores a nonce as a hash: its strings never reach the file', async () => {
    const path = freshPath();
    const store = createSqliteStore({ path });
    const nonce = `nonce-${randomUUID()}`;
    await store.nonces.remember({ clientKey: 'c', token: 't', timestamp: 1, nonce }, 301);
    // A control: a client's name is stored as text, so reading the files does find strings.
    const client = await store.clients.create(newClient({ name: `name-${randomUUID()}` }));
    const files = () => [path, `${path}-wal`].filter(existsSync).map((file) => readFileSync(file));
    assert.ok(files().some((bytes) => bytes.includes(client.name)));
    assert.ok(files().every((bytes) => !bytes.includes(nonce)));
    await store.close();
  });

  it('fails with StoreUnavailableError when another process holds the write lock too long', async () => {
    const path = freshPath();
    const store = createSqliteStore({ path, busyTimeoutMs: 20 });
    const holder = new DatabaseSync(path);
    holder.exec('BEGIN IMMEDIATE');
    try {
      await assert.rejects(store.owners.create(newOwner()), StoreUnavailableError);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
      await store.close();
    }
  });
});

describe('SQLite store: migrations', () => {
  it('brings a new database to the newest schema version', async () => {
    const path = freshPath();
    await createSqliteStore({ path }).close();
    assert.equal(inspect(path, schemaVersion), migrations.length);
  });

  it('applies nothing to a database that is already current', async () => {
    const path = freshPath();
    await createSqliteStore({ path }).close();
    assert.equal(inspect(path, applyMigrations), 0);
    await createSqliteStore({ path }).close();
    assert.equal(inspect(path, schemaVersion), migrations.length);
  });

  it('turns the accounts of a version 3 database into local owners, keeping their tokens and sessions', async () => {
    const path = freshPath();
    const db = new DatabaseSync(path, { enableForeignKeyConstraints: true });
    for (const [index, migration] of migrations.slice(0, 3).entries()) {
      applyMigration(db, migration);
      db.exec(`PRAGMA user_version = ${index + 1}`);
    }
    db.exec(`
      INSERT INTO owners VALUES ('owner-1', 'alice', 'scrypt$hash', 1);
      INSERT INTO clients VALUES ('client-1', 's', 'App', '', NULL, '[]', '[]', NULL, 0, 0, NULL, 1);
      INSERT INTO token_credentials VALUES ('token-1', 's', 'client-1', 'owner-1', 'read', 1, NULL, NULL, NULL);
      INSERT INTO sessions VALUES ('session-1', 'owner-1', 1, 9999999999999);
    `);
    db.close();
    const store = createSqliteStore({ path });
    try {
      assert.deepEqual(await store.owners.findById('owner-1'), {
        id: 'owner-1',
        source: 'local',
        subject: 'owner-1',
        issuer: null,
        name: 'alice',
        username: 'alice',
        passwordHash: 'scrypt$hash',
        createdAt: 1,
      });
      assert.equal((await store.tokenCredentials.find('token-1'))?.ownerId, 'owner-1');
      assert.equal((await store.sessions.find('session-1', 2))?.ownerId, 'owner-1');
      // The foreign keys still hold: removing the owner still removes its token.
      await store.owners.remove('owner-1');
      assert.equal(await store.tokenCredentials.find('token-1'), undefined);
    } finally {
      await store.close();
    }
  });

  it('refuses a database whose schema is newer than it knows, saying so', async () => {
    const path = freshPath();
    await createSqliteStore({ path }).close();
    inspect(path, (db) => db.exec(`PRAGMA user_version = ${migrations.length + 1}`));
    assert.throws(() => createSqliteStore({ path }), /newer than this Latchkey knows/);
  });
});

describe('SQLite store: durability', () => {
  it('keeps every acknowledged token and nonce when the process is killed with SIGKILL', async () => {
    const path = freshPath();
    const script = join(import.meta.dirname, 'sqlite-writer.ts');
    const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', script, path], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    const killed = new Promise<void>((resolve, reject) => {
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        output += chunk;
        // Kill it mid-stream, while it is still writing.
        if (output.split('\n').length > 400) child.kill('SIGKILL');
      });
      child.on('exit', (_code, signal) => {
        if (signal === 'SIGKILL') resolve();
        else reject(new Error('The writer exited before it was killed.'));
      });
    });
    await killed;

    // Only whole lines count: a line cut short was not yet acknowledged.
    const lines = output.split('\n').slice(0, -1);
    const tokens = lines.filter((line) => line.startsWith('token ')).map((line) => line.slice(6));
    const nonces = lines
      .filter((line) => line.startsWith('nonce '))
      .map((line) => JSON.parse(line.slice(6)) as NonceKey);
    assert.ok(tokens.length >= 100 && nonces.length >= 100);

    const store = createSqliteStore({ path });
    try {
      for (const token of tokens) {
        assert.notEqual(await store.tokenCredentials.find(token), undefined);
      }
      for (const key of nonces) {
        assert.equal(await store.nonces.remember(key, key.timestamp + 3600), false);
      }
    } finally {
      await store.close();
    }
  });
});
