/**
 * The embedded store: one SQLite file through node:sqlite, the default for a single machine
 * (docs/architecture.md "State and scale"). WAL with synchronous=NORMAL keeps every committed
 * transaction across a `kill -9` of the process (the WAL is in the OS's hands at commit; only
 * a power loss can take the last ones), and lets the server and the CLI use the file at once.
 *
 * @example const store = createSqliteStore({ path: 'data/latchkey.db' });
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { createSealer, type Keyring } from '../sealing.ts';
import type { Store } from '../types.ts';
import { createMemoryRateCounters } from '../memory-rate-counters.ts';
import { sqliteAttempts } from './attempts.ts';
import { sqliteClients } from './clients.ts';
import { startCheckpointer, type CheckpointReport } from './checkpointer.ts';
import { applyMigrations } from './migrations.ts';
import { sqliteUsage } from './usage.ts';
import { sqliteNonces } from './nonces.ts';
import { sqliteSealedSecrets } from './sealed-secrets.ts';
import { sqliteTemporaryCredentials } from './temporary-credentials.ts';
import { sqliteTokenCredentials } from './token-credentials.ts';
import { sqliteTransfer } from './transfer.ts';
import { sqliteWebhooks } from './webhooks.ts';
import { readCacheOn } from './read-cache.ts';
import { fromRow, read } from './row.ts';
import { sqliteRunner } from './runner.ts';
import { sqlAdminTokens } from '../sql/admin-tokens.ts';
import { sqlAudit } from '../sql/audit.ts';
import { sqlConsents } from '../sql/consents.ts';
import { sqlConsoleSessions } from '../sql/console-sessions.ts';
import { sqlPreviousCredentials } from '../sql/previous-credentials.ts';
import { sqlLoginChallenges } from '../sql/login-challenges.ts';
import { sqlOwners } from '../sql/owners.ts';
import { sqlSessions } from '../sql/sessions.ts';
import { transactionOn } from './transaction.ts';

// Taken when this module runs rather than linked with the import graph: on a Node without
// node:sqlite, the package's entry first says which Node it needs (src/node-version.ts)
// instead of the loader's bare "No such built-in module".
const { DatabaseSync: Database } = process.getBuiltinModule('node:sqlite');

export interface SqliteStoreOptions {
  /** The database file; its directory is created when missing. */
  readonly path: string;
  /** Clock for the creation times the store sets itself (milliseconds). */
  readonly now?: () => number;
  /** How long to wait for another process's write lock before failing (default 5 s). */
  readonly busyTimeoutMs?: number;
  /**
   * Checkpoint the WAL from a worker thread every this many ms instead of on the serving
   * connection (default 1000; 0 keeps SQLite's automatic checkpoints, as a short-lived CLI
   * command does).
   */
  readonly checkpointIntervalMs?: number;
  /** The log size past which the checkpoint worker restarts it (default 16 MiB). */
  readonly maxWalBytes?: number;
  /** Told of each RESTART or TRUNCATE checkpoint the worker runs (diagnostics, tests). */
  readonly onCheckpoint?: (report: CheckpointReport) => void;
  /** The keys that seal secrets at rest (src/store/key-file.ts); without it, secrets in clear. */
  readonly keyring?: Keyring | undefined;
  /**
   * Told when a checkpoint fails for another reason than a busy lock (a full disk), once
   * until checkpoints succeed again; a process warning when not given.
   */
  readonly onCheckpointError?: (error: Error) => void;
}

/**
 * The file holds every credential: only its owner may read it. A missing directory is made
 * 0700 and a missing file 0600 before SQLite opens it; SQLite gives the -wal and -shm files the
 * database file's mode. A file an older version left readable to others is narrowed to its
 * owner (with its -wal and -shm); a directory that already exists is the operator's to set.
 */
function prepareFiles(path: string): void {
  const directory = dirname(path);
  if (!existsSync(directory)) mkdirSync(directory, { recursive: true, mode: 0o700 });
  closeSync(openSync(path, 'a', 0o600));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    if (!existsSync(file)) continue;
    const mode = statSync(file).mode & 0o777;
    // Another account's file (EPERM) is left as it is: SQLite then says whether it can open it.
    if ((mode & 0o077) !== 0) tryChmod(file, mode & 0o700);
  }
}

function tryChmod(file: string, mode: number): void {
  try {
    chmodSync(file, mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') throw error;
  }
}

function open(path: string, busyTimeoutMs: number): DatabaseSync {
  if (path !== ':memory:') prepareFiles(path);
  // `timeout` is busy_timeout, set before the first statement: the server and the CLI open
  // the same file, and even switching to WAL below needs the lock.
  const db = new Database(path, { timeout: busyTimeoutMs, enableForeignKeyConstraints: true });
  try {
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL');
    // Cascading deletes (clients.remove, owners.remove) depend on it.
    db.exec('PRAGMA foreign_keys = ON');
    applyMigrations(db);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Opens (creating and migrating as needed) the SQLite store at `path`. */
export function createSqliteStore(options: SqliteStoreOptions): Store {
  const now = options.now ?? Date.now;
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  const db = open(options.path, busyTimeoutMs);
  const interval = options.path === ':memory:' ? 0 : (options.checkpointIntervalMs ?? 1000);
  let checkpointer: ReturnType<typeof startCheckpointer> | undefined;
  if (interval > 0) {
    db.exec('PRAGMA wal_autocheckpoint = 0');
    checkpointer = startCheckpointer({
      path: options.path,
      intervalMs: interval,
      busyTimeoutMs,
      maxWalBytes: options.maxWalBytes,
      onCheckpoint: options.onCheckpoint,
      onError: options.onCheckpointError,
    });
  }
  const transaction = transactionOn(db);
  const ping = db.prepare('SELECT 1');

  // Clients, tokens and owners are read on every verified request and rarely change.
  const cache = readCacheOn(db);
  const sealer = createSealer(options.keyring);
  const clients = sqliteClients(db, now, sealer);
  const sql = sqliteRunner(db, transaction);
  const owners = sqlOwners(sql, fromRow, now);
  const tokenCredentials = sqliteTokenCredentials(db, transaction, sealer);

  return {
    clients: {
      ...cache.invalidating(clients, ['find', 'list']),
      find: cache.cached(clients.find),
    },
    previousCredentials: sqlPreviousCredentials(sql, sealer, read.int),
    owners: {
      ...cache.invalidating(owners, ['findById', 'findByUsername', 'findByIdentity', 'list']),
      findById: cache.cached(owners.findById),
    },
    temporaryCredentials: cache.invalidating(sqliteTemporaryCredentials(db, transaction, sealer), [
      'find',
    ]),
    tokenCredentials: {
      ...cache.invalidating(tokenCredentials, ['find', 'list', 'count']),
      find: cache.cached(tokenCredentials.find),
    },
    nonces: sqliteNonces(db, transaction, busyTimeoutMs),
    sessions: sqlSessions(sql, fromRow),
    consents: sqlConsents(sql, fromRow),
    attempts: sqliteAttempts(db, transaction),
    rateCounters: createMemoryRateCounters(),
    transfer: cache.invalidating(sqliteTransfer(db, transaction, sealer), [
      'clientsAfter',
      'tokensAfter',
    ]),
    loginChallenges: sqlLoginChallenges(sql, fromRow),
    secrets: sqliteSealedSecrets(db, sql, transaction, sealer),
    audit: sqlAudit(sql, read),
    webhooks: sqliteWebhooks(db, sql, transaction, sealer),
    adminTokens: sqlAdminTokens(sql, read),
    consoleSessions: sqlConsoleSessions(sql, read),
    usage: sqliteUsage(db, sql, transaction),
    async ping() {
      try {
        ping.get();
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      await checkpointer?.stop();
      checkpointer = undefined;
      if (db.isOpen) db.close();
    },
  };
}
