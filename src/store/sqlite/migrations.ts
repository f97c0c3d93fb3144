/**
 * The SQLite schema as an ordered list of migrations. Entry i takes the schema from version i
 * to i + 1; `PRAGMA user_version` records the version, inside the same transaction as the
 * change, so a migration is applied whole or not at all. Append only: never edit a released
 * entry, add a new one.
 */
import { createHash } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';

export const migrations: readonly string[] = [
  // 1: the first schema. Tables keyed by a token or id are WITHOUT ROWID, so a lookup by
  // that key is one primary-key b-tree search (no separate index to consult).
  `
  CREATE TABLE owners (
    id TEXT PRIMARY KEY,
    username TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    created_at INTEGER NOT NULL
  ) WITHOUT ROWID;

  -- developer_id is informational (who registered the client in the portal), not a
  -- foreign key: removing that account does not remove the client.
  CREATE TABLE clients (
    key TEXT PRIMARY KEY,
    secret TEXT NOT NULL,
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    website TEXT,
    callbacks TEXT NOT NULL,
    signature_methods TEXT NOT NULL,
    rsa_public_key TEXT,
    constrained_device INTEGER NOT NULL,
    verified INTEGER NOT NULL,
    developer_id TEXT,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX clients_developer ON clients (developer_id);

  CREATE TABLE temporary_credentials (
    token TEXT PRIMARY KEY,
    secret TEXT NOT NULL,
    client_key TEXT NOT NULL REFERENCES clients (key) ON DELETE CASCADE,
    callback TEXT NOT NULL,
    requested_scope TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('issued', 'authorized', 'consumed', 'denied')),
    owner_id TEXT REFERENCES owners (id) ON DELETE CASCADE,
    verifier TEXT,
    approved_scope TEXT,
    approved_lifetime INTEGER,
    verifier_failures INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX temporary_credentials_client ON temporary_credentials (client_key);
  CREATE INDEX temporary_credentials_owner ON temporary_credentials (owner_id);
  CREATE INDEX temporary_credentials_expiry ON temporary_credentials (expires_at);

  CREATE TABLE token_credentials (
    token TEXT PRIMARY KEY,
    secret TEXT NOT NULL,
    client_key TEXT NOT NULL REFERENCES clients (key) ON DELETE CASCADE,
    owner_id TEXT NOT NULL REFERENCES owners (id) ON DELETE CASCADE,
    scope TEXT NOT NULL,
    issued_at INTEGER NOT NULL,
    expires_at INTEGER,
    last_used_at INTEGER,
    revoked_at INTEGER
  ) WITHOUT ROWID;
  CREATE INDEX token_credentials_grant ON token_credentials (owner_id, client_key);
  CREATE INDEX token_credentials_client ON token_credentials (client_key);

  -- §3.3: only a 64-bit digest of the nonce key (src/store/nonce-hash.ts). Expiry leads the
  -- key, so purging is a range delete on the primary-key prefix.
  CREATE TABLE nonces (
    expires_at INTEGER NOT NULL,
    hash INTEGER NOT NULL,
    PRIMARY KEY (expires_at, hash)
  ) WITHOUT ROWID;

  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    owner_id TEXT NOT NULL REFERENCES owners (id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX sessions_owner ON sessions (owner_id);
  CREATE INDEX sessions_expiry ON sessions (expires_at);

  -- Login throttling: hits per key and millisecond, counted over a sliding window.
  CREATE TABLE attempts (
    key TEXT NOT NULL,
    at INTEGER NOT NULL,
    hits INTEGER NOT NULL,
    PRIMARY KEY (key, at)
  ) WITHOUT ROWID;
  `,
  // 2: nonces move from a table keyed by (expires_at, hash) to an append-only log
  // (src/store/sqlite/nonces.ts): random keys put each insert on a page of its own, a log
  // appends. seq only grows: a purge never deletes the newest row (without AUTOINCREMENT,
  // whose counter page would be one more WAL write per commit), so another process's
  // "entries since seq N" never misses a row.
  `
  CREATE TABLE nonce_log (
    seq INTEGER PRIMARY KEY,
    expires_at INTEGER NOT NULL,
    hash INTEGER NOT NULL
  );
  INSERT INTO nonce_log (expires_at, hash) SELECT expires_at, hash FROM nonces ORDER BY expires_at;
  DROP TABLE nonces;
  `,
  // 3: the log keeps a row per commit, its nonces as one blob of 9-byte entries (expiry
  // offset, hash: src/store/sqlite/nonce-batch.ts): about 9.5 bytes a live nonce instead of
  // about 22. The rows of version 2 are regrouped by expiry second (offset 0).
  `
  CREATE TABLE nonce_batches (
    seq INTEGER PRIMARY KEY,
    expires_at INTEGER NOT NULL,
    entries BLOB NOT NULL
  );
  INSERT INTO nonce_batches (expires_at, entries)
    SELECT expires_at, unhex(group_concat(printf('00%016X', hash), ''))
    FROM nonce_log GROUP BY expires_at ORDER BY expires_at;
  DROP TABLE nonce_log;
  `,
  // 4: owners from other identity sources (docs/identity.md). An owner gains its source, a
  // stable subject (a local owner's is its id), an issuer (OpenID Connect) and a display name;
  // username and password hash become optional, which SQLite can only do by rebuilding the
  // table (foreign keys are off while migrating: see applyMigrations). Login challenges hold
  // sign-ins handed to an identity provider or a login app, shared by every process.
  `
  CREATE TABLE owners_next (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL CHECK (source IN ('local', 'oidc', 'delegated')),
    subject TEXT NOT NULL,
    issuer TEXT,
    name TEXT NOT NULL,
    username TEXT UNIQUE,
    password_hash TEXT,
    created_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  INSERT INTO owners_next (id, source, subject, issuer, name, username, password_hash, created_at)
    SELECT id, 'local', id, NULL, username, username, password_hash, created_at FROM owners;
  DROP TABLE owners;
  ALTER TABLE owners_next RENAME TO owners;
  CREATE UNIQUE INDEX owners_identity ON owners (source, coalesce(issuer, ''), subject);

  CREATE TABLE login_challenges (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('oidc', 'delegated')),
    browser TEXT NOT NULL,
    origin TEXT NOT NULL,
    next TEXT NOT NULL,
    oauth_token TEXT,
    data TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending', 'accepted', 'rejected', 'used')),
    verifier TEXT UNIQUE,
    subject TEXT,
    name TEXT,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX login_challenges_expiry ON login_challenges (expires_at);
  `,
  // 5: an operator may disable a client (its requests are refused, its tokens kept).
  `
  ALTER TABLE clients ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0;
  `,
  // 6: the nonce log records the timestamp window of each row's entries, so the index
  // groups a nonce by its request's timestamp (expiry less window), never by its expiry: a
  // replay is found whatever window either use was checked under. Older rows have none
  // (src/store/sqlite/nonces.ts assumes the default window for them).
  `
  ALTER TABLE nonce_batches ADD COLUMN window_seconds INTEGER;
  `,
  // 7: the session extension: per client, and a token's session (the hash of its handle, and
  // when the session ends).
  `
  ALTER TABLE clients ADD COLUMN session_extension INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE token_credentials ADD COLUMN session_handle_hash TEXT;
  ALTER TABLE token_credentials ADD COLUMN session_expires_at INTEGER;
  `,
  // 8: a client's own rate limits, per minute (NULL: the server's default).
  `
  ALTER TABLE clients ADD COLUMN requests_per_minute INTEGER;
  ALTER TABLE clients ADD COLUMN failures_per_minute INTEGER;
  `,
  // 9: secrets at rest (src/store/sealing.ts): the id of the key each secret is sealed under,
  // null for one in clear (sealed by the next start with a key, or `latchkey keys reseal`);
  // verifiers kept only as digests (latchkey_digest: SHA-256, base64url, as the provider's).
  `
  ALTER TABLE clients ADD COLUMN secret_key_id TEXT;
  ALTER TABLE temporary_credentials ADD COLUMN secret_key_id TEXT;
  ALTER TABLE token_credentials ADD COLUMN secret_key_id TEXT;
  UPDATE temporary_credentials SET verifier = latchkey_digest(verifier) WHERE verifier IS NOT NULL;
  `,
  // 10: the audit trail of security events (src/store/types.ts AuditStore), newest read first.
  `
  CREATE TABLE audit_events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at INTEGER NOT NULL,
    event TEXT NOT NULL,
    actor TEXT NOT NULL,
    owner_id TEXT,
    client_key TEXT,
    address TEXT,
    detail TEXT NOT NULL
  );
  CREATE INDEX audit_events_at ON audit_events (at);
  CREATE INDEX audit_events_client ON audit_events (client_key, at);
  CREATE INDEX audit_events_owner ON audit_events (owner_id, at);
  `,
  // 11: the tokens of a session, found by its handle hash: an import refuses a token whose
  // session another token now holds (renewed since the export; docs/import.md).
  `
  CREATE INDEX token_credentials_session ON token_credentials (session_handle_hash)
    WHERE session_handle_hash IS NOT NULL;
  `,
  // 12: a client's use per UTC day (src/store/usage.ts UsageStore): verified requests and
  // last use, failures by oauth_problem, the owners acted for (one row each: exact counts).
  `
  CREATE TABLE client_usage (
    client_key TEXT NOT NULL,
    day TEXT NOT NULL,
    requests INTEGER NOT NULL,
    last_used_at INTEGER,
    PRIMARY KEY (client_key, day)
  );
  CREATE TABLE client_usage_failures (
    client_key TEXT NOT NULL,
    day TEXT NOT NULL,
    problem TEXT NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (client_key, day, problem)
  );
  CREATE TABLE client_usage_owners (
    client_key TEXT NOT NULL,
    day TEXT NOT NULL,
    owner_id TEXT NOT NULL,
    PRIMARY KEY (client_key, day, owner_id)
  );
  CREATE INDEX client_usage_day ON client_usage (day);
  CREATE INDEX client_usage_failures_day ON client_usage_failures (day);
  CREATE INDEX client_usage_owners_day ON client_usage_owners (day);
  `,
];

/** The schema version of an open database (`PRAGMA user_version`). */
export function schemaVersion(db: DatabaseSync): number {
  const row = db.prepare('PRAGMA user_version').get();
  return Number(row?.user_version ?? 0);
}

/**
 * Brings the schema up to date and returns how many migrations it applied (0 when current).
 * BEGIN IMMEDIATE takes the write lock before reading the version, so two processes opening
 * the same new file do not both migrate it. A database newer than this code is refused
 * rather than used with a schema we do not know.
 */
export function applyMigrations(db: DatabaseSync): number {
  // Migration 8 digests the stored verifiers as the provider does (src/provider/accounts/sessions.ts).
  db.function('latchkey_digest', { deterministic: true }, (value) =>
    typeof value === 'string' ? createHash('sha256').update(value).digest('base64url') : value,
  );
  // A migration may rebuild a table others refer to (SQLite's documented ALTER TABLE
  // procedure): with foreign keys on, dropping the old table would cascade its deletes. The
  // pragma has no effect inside a transaction, so it is set around it, and the keys are
  // checked before the commit instead.
  const foreignKeys = Number(db.prepare('PRAGMA foreign_keys').get()?.foreign_keys ?? 0);
  db.exec('PRAGMA foreign_keys = OFF');
  try {
    return migrateWithoutForeignKeys(db);
  } finally {
    if (foreignKeys !== 0) db.exec('PRAGMA foreign_keys = ON');
  }
}

function migrateWithoutForeignKeys(db: DatabaseSync): number {
  db.exec('BEGIN IMMEDIATE');
  try {
    const version = schemaVersion(db);
    if (version > migrations.length) {
      throw new Error(
        `The database schema is version ${version}, newer than this Latchkey knows ` +
          `(${migrations.length}); upgrade Latchkey before opening it.`,
      );
    }
    for (const [index, sql] of migrations.entries()) {
      if (index < version) continue;
      db.exec(sql);
      db.exec(`PRAGMA user_version = ${index + 1}`);
    }
    if (db.prepare('PRAGMA foreign_key_check').all().length > 0) {
      throw new Error('The migrated database breaks a foreign key; nothing was changed.');
    }
    db.exec('COMMIT');
    return migrations.length - version;
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
}
