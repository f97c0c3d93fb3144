/**
 * The schema of both SQL stores as ONE ordered list of steps, each with its SQLite and its
 * PostgreSQL form; each dialect's runner (src/store/sqlite/migrations.ts,
 * src/store/postgres/migrations.ts) applies the steps that have its form, in this order, and
 * records its own version: the number of its forms applied. A step one dialect does not need
 * has `null` there (SQLite's nonce log rebuilds), so the two versions differ (SQLite is at
 * 19 where PostgreSQL is at 17) and every database keeps the version it was written with.
 *
 * Adding a migration: append ONE step at the end of the list (`policySteps` in
 * migrations-policy.ts, the later half), with a `name` saying
 * what it changes, a comment saying why, and both forms: `...alike((t) => sql)` when they
 * differ only in the spelling of types (`t`), else `sqlite:` and `postgres:` apart (or `null`
 * for a dialect that needs nothing). A form is SQL text, or a function for a step that needs code (it runs inside the
 * migration's transaction: SQLite's on the DatabaseSync, PostgreSQL's through the query of its
 * transaction, search_path set to the store's schema). Never edit or reorder a released step:
 * a database records only how many forms it has applied.
 */
import { firstSchema, type Types } from './first-schema.ts';
import { alike, postgresTypes, sqliteTypes, type MigrationStep } from './migration-step.ts';
import { policySteps } from './migrations-policy.ts';

export type { PostgresMigration, SqliteMigration } from './migration-step.ts';

/** Sign-ins handed to an identity provider or a login app, shared by every process. */
function loginChallenges(t: Types): string {
  return `CREATE TABLE login_challenges (
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
    created_at ${t.int64} NOT NULL,
    expires_at ${t.int64} NOT NULL
  )${t.keyed};
  CREATE INDEX login_challenges_expiry ON login_challenges (expires_at);
  `;
}

const ownerIdentity = `CREATE UNIQUE INDEX owners_identity ON owners (source, coalesce(issuer, ''), subject);`;

const secretKeyIds = `
  ALTER TABLE clients ADD COLUMN secret_key_id TEXT;
  ALTER TABLE temporary_credentials ADD COLUMN secret_key_id TEXT;
  ALTER TABLE token_credentials ADD COLUMN secret_key_id TEXT;`;

export const migrationSteps: readonly MigrationStep[] = [
  { name: 'first schema', ...alike(firstSchema) },
  // SQLite only: nonces move from a table keyed by (expires_at, hash) to an append-only log
  // (src/store/sqlite/nonces.ts): random keys put each insert on a page of its own, a log
  // appends. seq only grows: a purge never deletes the newest row (without AUTOINCREMENT,
  // whose counter page would be one more WAL write per commit), so another process's
  // "entries since seq N" never misses a row.
  {
    name: 'nonce log',
    sqlite: `
  CREATE TABLE nonce_log (
    seq INTEGER PRIMARY KEY,
    expires_at INTEGER NOT NULL,
    hash INTEGER NOT NULL
  );
  INSERT INTO nonce_log (expires_at, hash) SELECT expires_at, hash FROM nonces ORDER BY expires_at;
  DROP TABLE nonces;
  `,
    postgres: null,
  },
  // SQLite only: the log keeps a row per commit, its nonces as one blob of 9-byte entries
  // (expiry offset, hash: src/store/sqlite/nonce-batch.ts): about 9.5 bytes a live nonce
  // instead of about 22. The rows of the log are regrouped by expiry second (offset 0).
  {
    name: 'nonce batches',
    sqlite: `
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
    postgres: null,
  },
  // Owners from other identity sources (docs/identity.md). An owner gains its source, a stable
  // subject (a local owner's is its id), an issuer (OpenID Connect) and a display name;
  // username and password hash become optional, which SQLite can only do by rebuilding the
  // table (foreign keys are off while migrating: see its applyMigrations). Login challenges
  // hold sign-ins handed to an identity provider or a login app, shared by every process.
  {
    name: 'owner identities and login challenges',
    sqlite: `
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
  ${ownerIdentity}

  ${loginChallenges(sqliteTypes)}`,
    postgres: `
  ALTER TABLE owners
    ADD COLUMN source TEXT NOT NULL DEFAULT 'local'
      CHECK (source IN ('local', 'oidc', 'delegated')),
    ADD COLUMN subject TEXT,
    ADD COLUMN issuer TEXT,
    ADD COLUMN name TEXT,
    ALTER COLUMN username DROP NOT NULL,
    ALTER COLUMN password_hash DROP NOT NULL;
  UPDATE owners SET subject = id, name = username;
  ALTER TABLE owners
    ALTER COLUMN source DROP DEFAULT,
    ALTER COLUMN subject SET NOT NULL,
    ALTER COLUMN name SET NOT NULL;
  ${ownerIdentity}

  ${loginChallenges(postgresTypes)}`,
  },
  // An operator may disable a client (its requests are refused, its tokens kept).
  {
    name: 'disabled clients',
    ...alike(
      (t) => `
  ALTER TABLE clients ADD COLUMN disabled ${t.bool} NOT NULL DEFAULT ${t.no};
  `,
    ),
  },
  // A nonce is found whatever timestamp window either use was checked under: instances with
  // different windows, or a restart with another window, compute other expiries for the same
  // request. SQLite: the nonce log records the window of each row's entries, so the index
  // groups a nonce by its request's timestamp (expiry less window), never by its expiry; older
  // rows have none (src/store/sqlite/nonces.ts assumes the default window for them).
  // PostgreSQL: a nonce is found by its hash alone (which covers client, token, timestamp and
  // nonce); of a hash stored twice (replays accepted that way), the later expiry stays.
  {
    name: 'nonces apart from the timestamp window',
    sqlite: `
  ALTER TABLE nonce_batches ADD COLUMN window_seconds INTEGER;
  `,
    postgres: `
  DELETE FROM nonces a USING nonces b
    WHERE a.hash = b.hash AND a.expires_at < b.expires_at;
  CREATE UNIQUE INDEX nonces_hash ON nonces (hash);
  `,
  },
  // The session extension: per client, and a token's session (the hash of its handle, and
  // when the session ends).
  {
    name: 'session extension',
    ...alike(
      (t) => `
  ALTER TABLE clients ADD COLUMN session_extension ${t.bool} NOT NULL DEFAULT ${t.no};
  ALTER TABLE token_credentials ADD COLUMN session_handle_hash TEXT;
  ALTER TABLE token_credentials ADD COLUMN session_expires_at ${t.int64};
  `,
    ),
  },
  // A client's own rate limits, per minute (NULL: the server's default).
  {
    name: 'client rate limits',
    ...alike(
      () => `
  ALTER TABLE clients ADD COLUMN requests_per_minute INTEGER;
  ALTER TABLE clients ADD COLUMN failures_per_minute INTEGER;
  `,
    ),
  },
  // Secrets at rest (src/store/sealing.ts): the id of the key each secret is sealed under,
  // null for one in clear (sealed by the next start with a key, or `latchkey keys reseal`);
  // verifiers kept only as digests (SHA-256, base64url without padding, as the provider's;
  // SQLite's latchkey_digest is registered by its applyMigrations).
  {
    name: 'sealed secrets',
    sqlite: `${secretKeyIds}
  UPDATE temporary_credentials SET verifier = latchkey_digest(verifier) WHERE verifier IS NOT NULL;
  `,
    postgres: `${secretKeyIds}
  UPDATE temporary_credentials
    SET verifier = rtrim(translate(encode(sha256(convert_to(verifier, 'UTF8')), 'base64'),
      '+/', '-_'), '=')
    WHERE verifier IS NOT NULL;
  `,
  },
  // The audit trail of security events (src/store/types.ts AuditStore), newest read first.
  {
    name: 'audit trail',
    ...alike(
      (t) => `
  CREATE TABLE audit_events (
    id ${t.serial},
    at ${t.int64} NOT NULL,
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
    ),
  },
  // The tokens of a session, found by its handle hash: an import refuses a token whose
  // session another token now holds (renewed since the export; docs/import.md).
  {
    name: 'tokens by session',
    ...alike(
      () => `
  CREATE INDEX token_credentials_session ON token_credentials (session_handle_hash)
    WHERE session_handle_hash IS NOT NULL;
  `,
    ),
  },
  ...policySteps,
];

/**
 * The migrations of one dialect that a database at `version` still needs, with their index
 * (the version each one leaves is index + 1). A database newer than this code is refused
 * rather than used with a schema we do not know.
 */
export function pendingMigrations<M>(
  migrations: readonly M[],
  version: number,
): [index: number, migration: M][] {
  if (version > migrations.length) {
    throw new Error(
      `The database schema is version ${version}, newer than this Latchkey knows ` +
        `(${migrations.length}); upgrade Latchkey before opening it.`,
    );
  }
  return [...migrations.entries()].slice(version);
}
