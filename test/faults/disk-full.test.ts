// The data directory's disk full under `latchkey serve` (SQLite store): a small tmpfs the test
// mounts, filled to the last byte by a file of the test's. A write that still fits in the WAL's
// pages is answered and stored; one that needs new disk answers 503 with Retry-After and an
// oauth_problem, and changes nothing; what only reads (the consent page of a pending
// authorization, the nonce check of a replay) keeps answering; once the file is deleted the
// server writes again without a restart; the database passes PRAGMA integrity_check and holds
// every credential issued before. Needs root (mount); skipped with the reason otherwise, and
// failed under CI.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, mkdtempSync, openSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, it } from 'node:test';
import { signRequest } from '../../src/client/index.ts';
import type { ClientCredentials, TokenCredentials } from '../../src/client/index.ts';
import { createProvider } from '../../src/provider/index.ts';
import { createSqliteStore } from '../../src/store/index.ts';
import { fixedKeyring, keySetOf } from '../../src/store/key-file.ts';
import { randomBytes } from 'node:crypto';
import { startCheckpointer } from '../../src/store/sqlite/checkpointer.ts';
import { baseEnv, bin } from '../cli/run-cli.ts';
import { requirement } from '../support/requirements.ts';
import { eventually, within } from '../stores/support-faults.ts';

const HANG_MS = 30_000;
/** The sealing key shared by the server and this process's store (the server seals what the test reads). */
const secretKey = randomBytes(32).toString('base64url');
const keyring = fixedKeyring(keySetOf(secretKey));

/** Mounts a tmpfs of `size` on `dir`; undefined when done, else why not. */
function mountTmpfs(dir: string, size: string): string | undefined {
  if (process.getuid?.() !== 0) return 'not running as root';
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], {
    encoding: 'utf8',
  });
  if (mounted.error !== undefined) return mounted.error.message;
  return mounted.status === 0 ? undefined : `mount: ${mounted.stderr.trim()}`;
}

function unmount(dir: string): void {
  spawnSync('umount', [dir]);
}

const probe = mkdtempSync(join(tmpdir(), 'latchkey-mount-probe-'));
const mountProblem = mountTmpfs(probe, '1m');
if (mountProblem === undefined) unmount(probe);
rmSync(probe, { recursive: true, force: true });
const skip = requirement('a tmpfs the test mounts (root, mount permitted)', mountProblem);

/** Writes `path` until the file system refuses (ENOSPC); returns the bytes written. */
function fill(path: string): number {
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  let written = 0;
  try {
    for (let size = chunk.length; size >= 1;) {
      try {
        written += writeSync(fd, chunk, 0, size);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
        size = Math.floor(size / 2); // the last pages, smaller and smaller
      }
    }
  } finally {
    closeSync(fd);
  }
  return written;
}

describe('latchkey serve with its data directory full', { skip }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-disk-full-'));
  const database = join(dir, 'latchkey.db');
  const filler = join(dir, 'filler');
  let child: ReturnType<typeof spawn>;
  let exited: Promise<unknown[]>;
  let output = '';
  let url: string;
  let client: ClientCredentials;
  let token: TokenCredentials;
  let pending: string;
  let usedBefore: ReturnType<typeof signRequest>;
  let sent = 0;
  const whileFull: Record<string, readonly [number, string | null, string | null]> = {};
  /** Signed requests answered 200 while the disk was full: their nonces must be stored. */
  const acceptedWhileFull: ReturnType<typeof signRequest>[] = [];

  /** Sends until an answer is not a 200 (at most a few thousand); returns that answer. */
  async function untilRefused(attempt: () => ReturnType<typeof send>) {
    for (let i = 0; i < 5000; i++) {
      const answer = await attempt();
      if (answer[0] !== 200) return answer;
    }
    throw new Error('every write was answered 200 on a full disk');
  }

  function me(nonce = `fresh-${++sent}`) {
    return signRequest({ method: 'GET', url: `${url}/api/me`, client, token, nonce });
  }

  function temporary() {
    return signRequest({
      method: 'POST',
      url: `${url}/oauth/request_token`,
      client,
      protocolParameters: { oauth_callback: 'oob' },
    });
  }

  /** Sends a signed request: [status, Retry-After, oauth_problem]. */
  async function send(request: ReturnType<typeof signRequest>, method = 'GET') {
    const response = await fetch(request.url, { method, headers: request.headers });
    const body = await response.text();
    return [
      response.status,
      response.headers.get('retry-after'),
      new URLSearchParams(body).get('oauth_problem'),
    ] as const;
  }

  before(async () => {
    const problem = mountTmpfs(dir, '8m');
    if (problem !== undefined) throw new Error(problem);
    const store = createSqliteStore({ path: database, keyring });
    try {
      const provider = createProvider({ store });
      const registered = await provider.clients.register({ name: 'Disk probe' });
      const owner = await provider.owners.create('disk-owner', 'a long password');
      const issued = await provider.tokens.issue({ clientKey: registered.key, ownerId: owner.id });
      client = { key: registered.key, secret: registered.secret };
      token = { token: issued.token, secret: issued.secret };
    } finally {
      await store.close();
    }
    child = spawn(process.execPath, [bin, 'serve', '--port', '0'], {
      env: {
        ...baseEnv(),
        LATCHKEY_DATABASE: database,
        LATCHKEY_LOG_LEVEL: 'silent',
        LATCHKEY_SECRET_KEY: secretKey,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    exited = once(child, 'exit');
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    url = await within(
      HANG_MS,
      new Promise<string>((resolve, reject) => {
        child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
          output += chunk;
          const match = /^Latchkey listening on (\S+)$/m.exec(output);
          if (match !== null) resolve(match[1]!);
        });
        void exited.then(() => reject(new Error(`serve ended: ${output}`)));
      }),
    );
    // Before the disk fills: credentials read (and cached), a nonce used, a flow begun.
    usedBefore = me();
    assert.deepEqual(await send(usedBefore), [200, null, null]);
    const begun = temporary();
    const answer = await fetch(begun.url, { method: 'POST', headers: begun.headers });
    assert.equal(answer.status, 200);
    pending = new URLSearchParams(await answer.text()).get('oauth_token') ?? '';

    fill(filler);
    // A write may still fit in the WAL's existing pages (answered 200: stored); the writes go
    // on until one needs a new page of disk.
    whileFull['temporary'] = await untilRefused(() => send(temporary(), 'POST'));
    whileFull['resource'] = await untilRefused(async () => {
      const request = me();
      const answer = await send(request);
      if (answer[0] === 200) acceptedWhileFull.push(request);
      return answer;
    });
    whileFull['replay'] = await send(usedBefore);
    const page = await fetch(`${url}/oauth/authorize?oauth_token=${pending}`, {
      redirect: 'manual',
    });
    await page.text();
    whileFull['consent page'] = [page.status, page.headers.get('retry-after'), null];
  });

  after(async () => {
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    unmount(dir);
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers a write (temporary credentials) 503 with Retry-After and an oauth_problem', (t) => {
    t.diagnostic(JSON.stringify(whileFull));
    assert.deepEqual(whileFull['temporary'], [503, '5', 'temporarily_unavailable']);
  });

  it('answers a signed request whose nonce cannot be stored 503, never accepting it unrecorded', () => {
    assert.deepEqual(whileFull['resource'], [503, '5', 'temporarily_unavailable']);
  });

  it('still refuses a replay of a nonce used before the disk filled', () => {
    assert.deepEqual(whileFull['replay'], [401, null, 'nonce_used']);
  });

  it('still shows a pending authorization (a read) to the owner', () => {
    assert.ok([200, 302, 303].includes(whileFull['consent page']![0]), 'not a failure');
  });

  it('writes again once space returns, without a restart', async () => {
    unlinkSync(filler);
    await eventually(HANG_MS, async () => {
      assert.deepEqual(await send(temporary(), 'POST'), [200, null, null]);
    });
    assert.deepEqual(await send(me()), [200, null, null]);
    assert.deepEqual(await send(usedBefore), [401, null, 'nonce_used']);
    for (const request of acceptedWhileFull) {
      assert.deepEqual(await send(request), [401, null, 'nonce_used']);
    }
  });

  it('leaves a database that passes integrity_check, with its credentials', async () => {
    child.kill('SIGTERM');
    const [code] = await within(HANG_MS, exited);
    assert.equal(code, 0, output);
    const db = new DatabaseSync(database, { readOnly: true });
    try {
      assert.deepEqual(
        db
          .prepare('PRAGMA integrity_check')
          .all()
          .map((row) => row['integrity_check']),
        ['ok'],
      );
    } finally {
      db.close();
    }
    const store = createSqliteStore({ path: database, checkpointIntervalMs: 0, keyring });
    try {
      assert.equal((await store.tokenCredentials.find(token.token))?.clientKey, client.key);
    } finally {
      await store.close();
    }
  });
});

describe('the checkpoint worker on a full disk', { skip }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-checkpoint-full-'));
  after(() => {
    unmount(dir);
    rmSync(dir, { recursive: true, force: true });
  });

  it('reports the checkpoint it cannot write, instead of failing in silence', async () => {
    const problem = mountTmpfs(dir, '4m');
    if (problem !== undefined) throw new Error(problem);
    const path = join(dir, 'latchkey.db');
    // Pages in the WAL that a checkpoint must copy into a database file that has to grow.
    const db = new DatabaseSync(path);
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA wal_autocheckpoint = 0');
    db.exec('CREATE TABLE filler (bytes BLOB)');
    const insert = db.prepare('INSERT INTO filler VALUES (randomblob(4000))');
    db.exec('BEGIN');
    for (let i = 0; i < 200; i++) insert.run();
    db.exec('COMMIT');
    fill(join(dir, 'filler'));
    let reported: (error: Error) => void = () => undefined;
    const failure = new Promise<Error>((resolve) => (reported = resolve));
    const checkpointer = startCheckpointer({
      path,
      intervalMs: 10,
      busyTimeoutMs: 100,
      onError: reported,
    });
    try {
      const error = await within(HANG_MS, failure);
      assert.match(error.message, /^SQLite checkpoint of .+ failed: database or disk is full$/);
    } finally {
      await checkpointer.stop();
      db.close();
    }
  });
});
