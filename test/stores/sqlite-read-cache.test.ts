import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay, setImmediate as nextTurn } from 'node:timers/promises';
import { createSqliteStore } from '../../src/store/index.ts';
import type { Store } from '../../src/store/index.ts';
import { startCheckpointer, type CheckpointReport } from '../../src/store/sqlite/checkpointer.ts';
import { StoreUnavailableError } from '../../src/store/index.ts';
import { localOwnerRecord } from '../support/owners.ts';
import { within } from './support-faults.ts';

/** A bound that turns a hang into a failure (it measures nothing). */
const HANG_MS = 10_000;

describe('SQLite store: the read cache and the nonce group commit', () => {
  let dir: string;
  let server: Store;
  let cli: Store;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'latchkey-read-cache-'));
    // Two connections on one file, as the server and the CLI beside it.
    server = createSqliteStore({ path: join(dir, 'latchkey.db') });
    cli = createSqliteStore({ path: join(dir, 'latchkey.db') });
  });
  after(async () => {
    await server.close();
    await cli.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function grant(suffix: string) {
    const client = await cli.clients.create({
      key: `key-${suffix}`,
      secret: 'first',
      name: 'App',
      description: '',
      website: null,
      callbacks: [],
      signatureMethods: [],
      publicKey: null,
      constrainedDevice: false,
      verified: false,
      developerId: null,
      disabled: false,
    });
    const owner = await cli.owners.create(
      localOwnerRecord({ id: `owner-${suffix}`, username: `user-${suffix}`, passwordHash: 'x' }),
    );
    const token = await cli.tokenCredentials.create({
      token: `token-${suffix}`,
      secret: 's',
      clientKey: client.key,
      ownerId: owner.id,
      scope: 'read',
      issuedAt: 1,
      expiresAt: null,
    });
    return { client, token };
  }

  it('sees a revocation committed by another process on the next turn', async () => {
    const { token } = await grant('revoke');
    assert.equal((await server.tokenCredentials.find(token.token))?.revokedAt, null);
    assert.equal(await cli.tokenCredentials.revoke(token.token, 1000), true);
    await nextTurn();
    assert.equal((await server.tokenCredentials.find(token.token))?.revokedAt, 1000);
  });

  it('sees a secret rotated by another process on the next turn', async () => {
    const { client } = await grant('rotate');
    assert.equal((await server.clients.find(client.key))?.secret, 'first');
    await cli.clients.update(client.key, { secret: 'second' });
    await nextTurn();
    assert.equal((await server.clients.find(client.key))?.secret, 'second');
  });

  it('sees its own writes at once', async () => {
    const { token } = await grant('own');
    await server.tokenCredentials.find(token.token);
    await server.tokenCredentials.revoke(token.token, 2000);
    assert.equal((await server.tokenCredentials.find(token.token))?.revokedAt, 2000);
  });

  it('sees a client removed by another process, with its tokens', async () => {
    const { client, token } = await grant('remove');
    await server.tokenCredentials.find(token.token);
    await cli.clients.remove(client.key);
    await nextTurn();
    assert.equal(await server.clients.find(client.key), undefined);
    assert.equal(await server.tokenCredentials.find(token.token), undefined);
  });

  it('commits nonces of one turn together, each still insert-if-absent', async () => {
    const key = { clientKey: 'c', token: 't', timestamp: 1, nonce: 'batched' };
    const answers = await Promise.all([
      server.nonces.remember(key, 100),
      server.nonces.remember({ ...key, nonce: 'other' }, 100),
      server.nonces.remember(key, 100),
    ]);
    assert.deepEqual(answers, [true, true, false]);
    assert.equal(
      await cli.nonces.remember(key, 100),
      false,
      'durable and visible to another process',
    );
  });

  it('rejects every nonce of a batch with StoreUnavailableError when the commit fails', async () => {
    const doomed = createSqliteStore({ path: join(dir, 'doomed.db'), checkpointIntervalMs: 0 });
    const pending = [1, 2].map((n) =>
      doomed.nonces.remember({ clientKey: 'c', token: '', timestamp: n, nonce: 'n' }, 100),
    );
    await doomed.close();
    for (const answer of pending) await assert.rejects(answer, StoreUnavailableError);
  });
});

describe('SQLite store: WAL checkpoints from a worker thread', () => {
  it('copies committed pages into the database file without the serving connection checkpointing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'latchkey-checkpoint-'));
    const path = join(dir, 'latchkey.db');
    const store = createSqliteStore({ path, checkpointIntervalMs: 50 });
    try {
      const before = statSync(path).size;
      await Promise.all(
        Array.from({ length: 3000 }, (_, i) =>
          store.nonces.remember({ clientKey: 'c', token: '', timestamp: i, nonce: 'n' }, i + 10),
        ),
      );
      const deadline = Date.now() + 10_000;
      while (statSync(path).size <= before && Date.now() < deadline) await delay(50);
      assert.ok(statSync(path).size > before, 'the worker checkpointed the WAL into the file');
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('restarts the log once it passes maxWalBytes under steady writes, and the next commits write from its start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'latchkey-wal-bound-'));
    const path = join(dir, 'latchkey.db');
    const limit = 64 * 1024;
    const reports: CheckpointReport[] = [];
    const store = createSqliteStore({
      path,
      checkpointIntervalMs: 20,
      maxWalBytes: limit,
      onCheckpoint: (report) => reports.push(report),
    });
    const commit = (round: number) =>
      Promise.all(
        Array.from({ length: 64 }, (_, i) =>
          store.nonces.remember(
            { clientKey: 'c', token: '', timestamp: round, nonce: `${round}-${i}` },
            10,
          ),
        ),
      );
    try {
      // Steady writes (one commit per turn, no pause for a passive pass to catch up) until the
      // worker reports a RESTART that completed; how soon depends on the machine, not the bound.
      const completed = () => reports.find((r) => r.mode === 'restart' && !r.busy);
      const deadline = Date.now() + 10_000;
      let round = 0;
      while (!completed() && Date.now() < deadline) await commit(round++);
      const restart = completed();
      assert.ok(restart, `a RESTART checkpoint completed (reports: ${JSON.stringify(reports)})`);
      assert.ok(restart.logBytes > limit, 'it was called for by a log past the bound');
      // The file keeps its size and the log starts over in it: a commit appends no frame past it.
      // (A TRUNCATE meanwhile would only make it smaller.)
      const size = statSync(`${path}-wal`).size;
      await commit(round++);
      assert.ok(statSync(`${path}-wal`).size <= size, 'the commit wrote inside the file');
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reports a checkpoint it cannot run, and stops at once when the worker has ended', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'latchkey-checkpoint-dead-'));
    try {
      // A directory is no database: the worker fails to open it, says so, and ends.
      let reported: (error: Error) => void = () => undefined;
      const failure = new Promise<Error>((resolve) => (reported = resolve));
      const checkpointer = startCheckpointer({
        path: dir,
        intervalMs: 20,
        busyTimeoutMs: 100,
        onError: reported,
      });
      const error = await within(HANG_MS, failure);
      assert.match(error.message, /^SQLite checkpoint of .+ failed: /);
      await within(HANG_MS, checkpointer.stop());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
