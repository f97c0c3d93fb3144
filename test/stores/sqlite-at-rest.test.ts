// What the embedded store leaves on disk: the data directory only its owner may enter, the
// database and its -wal and -shm files only its owner may read (a world-readable file hands
// every secret and verifier to any local account); and in the file, no secret in clear:
// client, token and temporary secrets sealed (AES-256-GCM), verifiers and session ids digested.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, it } from 'node:test';
import { createSqliteStore, openStore, type Store } from '../../src/store/index.ts';
import {
  ensureKeyFile,
  fileKeyring,
  fixedKeyring,
  newKey,
  pruneKeyFile,
  rotateKeyFile,
} from '../../src/store/key-file.ts';
import {
  MissingSealingKeyError,
  SealedValueError,
  verifierDigestWith,
} from '../../src/store/sealing.ts';
import { StoreUnavailableError } from '../../src/store/types.ts';
import { startWorld } from '../conformance/support/world.ts';
import { newClient, newOwner, newToken } from './contract/fixtures.ts';

const directory = mkdtempSync(join(tmpdir(), 'latchkey-at-rest-'));
after(() => rmSync(directory, { recursive: true, force: true }));

function modeOf(path: string): number {
  return statSync(path).mode & 0o777;
}

/** An open that should have been refused: a store opened anyway is closed (the test then fails). */
function refused(opening: Promise<Store>): Promise<void> {
  return opening.then((store) => store.close());
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

/** Every text value of the tables holding secrets, read with a plain connection. */
function storedText(path: string): string {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return ['clients', 'temporary_credentials', 'token_credentials', 'sessions']
      .flatMap((table) => db.prepare(`SELECT * FROM ${table}`).all())
      .map((row) => JSON.stringify(row))
      .join('\n');
  } finally {
    db.close();
  }
}

/** The database file and its log as bytes (latin1 keeps every byte as one character). */
function fileBytes(path: string): string {
  return [path, `${path}-wal`]
    .filter((file) => existsSync(file))
    .map((file) => readFileSync(file).toString('latin1'))
    .join('');
}

describe('Secrets at rest in SQLite (AES-256-GCM, RFC 5849 §4.6)', () => {
  it('keeps no client, token or temporary secret and no verifier in clear, and the flow works over HTTP', async () => {
    const key = newKey();
    const world = await startWorld({ keyring: fixedKeyring({ current: key, keys: [key] }) });
    try {
      const tokens = await world.tokenCredentials('HMAC-SHA1', 'header');
      assert.equal((await world.me('HMAC-SHA1', 'header', tokens)).status, 200);
      // A second flow left half-way: its temporary secret and verifier are in the store.
      const pending = await world.temporary('PLAINTEXT', 'header');
      const verifier = await world.approve(pending);
      const session = await world.server.provider.sessions.start(world.owner, 3600);
      const secrets = [
        world.sharedClient.secret,
        world.otherClient.secret,
        tokens.secret,
        pending.secret,
        verifier,
        session.cookie,
      ];
      const path = world.server.path;
      const rows = storedText(path);
      const bytes = fileBytes(path);
      for (const secret of secrets) {
        assert.equal(rows.includes(secret), false, 'a secret is readable in a row');
        assert.equal(bytes.includes(secret), false, 'a secret is readable in the file');
      }
      // Each sealed row names its key; the verifier is its digest keyed with the key.
      assert.match(rows, new RegExp(`"secret_key_id":"${key.id}"`));
      assert.doesNotMatch(rows, /"secret_key_id":null/);
      assert.ok(rows.includes(`"verifier":"${verifierDigestWith(key, verifier)}"`));
      assert.equal(rows.includes(verifierDigestWith(undefined, verifier)), false);
      // And the server still reads what it sealed: the pending flow completes.
      const exchanged = await world.exchange('PLAINTEXT', 'header', pending, verifier);
      assert.equal(exchanged.status, 200);
    } finally {
      await world.close();
    }
  });

  it('refuses a sealed value moved into another row (the row is the additional data)', async () => {
    const key = newKey();
    const path = join(directory, `${randomUUID()}.db`);
    const store = createSqliteStore({ path, keyring: fixedKeyring({ current: key, keys: [key] }) });
    try {
      const first = await store.clients.create(newClient());
      const second = await store.clients.create(newClient());
      const db = new DatabaseSync(path);
      db.prepare(
        'UPDATE clients SET secret = (SELECT secret FROM clients WHERE key = ?) WHERE key = ?',
      ).run(first.key, second.key);
      db.close();
      const reopened = createSqliteStore({
        path,
        keyring: fixedKeyring({ current: key, keys: [key] }),
      });
      try {
        await assert.rejects(reopened.clients.find(second.key), SealedValueError);
        assert.equal((await reopened.clients.find(first.key))?.secret, first.secret);
      } finally {
        await reopened.close();
      }
    } finally {
      await store.close();
    }
  });

  it('seals rows stored in clear once a key is configured, and reads both meanwhile', async () => {
    const path = join(directory, `${randomUUID()}.db`);
    const clear = createSqliteStore({ path });
    const client = await clear.clients.create(newClient());
    await clear.close();
    assert.match(storedText(path), new RegExp(client.secret));
    const key = newKey();
    const store = createSqliteStore({ path, keyring: fixedKeyring({ current: key, keys: [key] }) });
    try {
      assert.equal((await store.clients.find(client.key))?.secret, client.secret);
      assert.deepEqual(await store.secrets.countByKey(), new Map([['', 1]]));
      assert.equal(await store.secrets.reseal(), 1);
      assert.deepEqual(await store.secrets.countByKey(), new Map([[key.id, 1]]));
      assert.equal(storedText(path).includes(client.secret), false);
    } finally {
      await store.close();
    }
  });

  it('rotates the key file without a restart: old rows read, re-sealed, the old key then removable', async () => {
    const keyFile = join(directory, randomUUID(), 'latchkey.key');
    ensureKeyFile(keyFile);
    assert.equal(modeOf(keyFile).toString(8), '600');
    const path = join(directory, `${randomUUID()}.db`);
    // The running server's keyring: it follows the file (checked on every use here).
    const store = createSqliteStore({ path, keyring: fileKeyring(keyFile, { checkEveryMs: 0 }) });
    try {
      const owner = await store.owners.create(newOwner());
      const client = await store.clients.create(newClient());
      const token = await store.tokenCredentials.create(newToken(client.key, owner.id));
      // A previous secret kept for a rotation's overlap is sealed, counted and re-sealed too.
      await store.previousCredentials.keep({
        clientKey: client.key,
        kind: 'secret',
        value: 'the previous secret',
        replacedAt: Date.now(),
        until: Date.now() + 3_600_000,
        endedAt: null,
        lastUsedAt: null,
      });
      const { previous, current } = rotateKeyFile(keyFile);
      assert.notEqual(previous, current);
      // New writes take the new key at once; old rows are still read with the old one.
      const later = await store.clients.create(newClient());
      assert.deepEqual(
        await store.secrets.countByKey(),
        new Map([
          [previous, 3],
          [current, 1],
        ]),
      );
      assert.equal(await store.secrets.reseal({ batchSize: 1 }), 3);
      assert.deepEqual(await store.secrets.countByKey(), new Map([[current, 4]]));
      assert.deepEqual(pruneKeyFile(keyFile, new Set()), [previous]);
      // A store knowing only the new key reads every row.
      const fresh = createSqliteStore({ path, keyring: fileKeyring(keyFile) });
      try {
        assert.equal((await fresh.clients.find(client.key))?.secret, client.secret);
        assert.equal((await fresh.clients.find(later.key))?.secret, later.secret);
        assert.equal((await fresh.tokenCredentials.find(token.token))?.secret, token.secret);
        const [kept] = await fresh.previousCredentials.find(client.key);
        assert.equal(kept?.value, 'the previous secret');
      } finally {
        await fresh.close();
      }
    } finally {
      await store.close();
    }
  });

  it('refuses to open, with openStore, a database sealed under a key it was not given, naming the key', async () => {
    const path = join(directory, randomUUID(), 'latchkey.db');
    const keyFile = join(directory, randomUUID(), 'elsewhere.key');
    ensureKeyFile(keyFile);
    const keyring = fileKeyring(keyFile);
    const sealingId = keyring.current()!.id;
    const store = await openStore(path, { keyring });
    const client = await store.clients.create(newClient());
    await store.close();

    // No keyring and no key file beside the database; then another key than the one that sealed.
    for (const other of [undefined, fixedKeyring({ current: newKey(), keys: [] })]) {
      await assert.rejects(refused(openStore(path, { keyring: other })), (error: unknown) => {
        assert.ok(error instanceof MissingSealingKeyError);
        assert.deepEqual(error.keyIds, [sealingId]);
        assert.match(error.message, new RegExp(`key ${sealingId} \\(1 rows\\)`));
        assert.match(error.message, /LATCHKEY_SECRET_KEY/);
        return true;
      });
    }
    // A tool that reports on it still opens it; a read of the row is a store outage (503).
    const opened = await openStore(path, { checkKeys: false });
    try {
      await assert.rejects(opened.clients.find(client.key), StoreUnavailableError);
      assert.deepEqual(await opened.secrets.countByKey(), new Map([[sealingId, 1]]));
    } finally {
      await opened.close();
    }
    const given = await openStore(path, { keyring });
    await given.close();
  });
});
