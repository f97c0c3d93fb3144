/**
 * The PostgreSQL schema as an ordered list of migrations, numbered as the SQLite ones are
 * (src/store/sqlite/migrations.ts): entry i takes the schema from version i to i + 1, and the
 * same tables and columns, in PostgreSQL's types. `schema_migrations` records each version in
 * the transaction that applies it. Append only: never edit a released entry, add a new one.
 */
import type { Pool } from 'pg';
import { openDatabase } from './database.ts';

export const migrations: readonly string[] = [
  // 1: the first schema. Times are BIGINT milliseconds, as in every adapter.
  `
  CREATE TABLE owners (
    id TEXT PRIMARY KEY,
    username TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    created_at BIGINT NOT NULL
  );

  -- developer_id is informational (who registered the client in the portal), not a
  -- foreign key: removing that account does not remove the client.
  CREATE TABLE clients (
    key TEXT PRIMARY KEY,
    secret TEXT NOT NULL,
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    website TEXT,
    callbacks TEXT[] NOT NULL,
    signature_methods TEXT[] NOT NULL,
    rsa_public_key TEXT,
    constrained_device BOOLEAN NOT NULL,
    verified BOOLEAN NOT NULL,
    developer_id TEXT,
    created_at BIGINT NOT NULL
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
    approved_lifetime BIGINT,
    verifier_failures INTEGER NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
  );
  CREATE INDEX temporary_credentials_client ON temporary_credentials (client_key);
  CREATE INDEX temporary_credentials_owner ON temporary_credentials (owner_id);
  CREATE INDEX temporary_credentials_expiry ON temporary_credentials (expires_at);

  CREATE TABLE token_credentials (
    token TEXT PRIMARY KEY,
    secret TEXT NOT NULL,
    client_key TEXT NOT NULL REFERENCES clients (key) ON DELETE CASCADE,
    owner_id TEXT NOT NULL REFERENCES owners (id) ON DELETE CASCADE,
    scope TEXT NOT NULL,
    issued_at BIGINT NOT NULL,
    expires_at BIGINT,
    last_used_at BIGINT,
    revoked_at BIGINT
  );
  CREATE INDEX token_credentials_grant ON token_credentials (owner_id, client_key);
  CREATE INDEX token_credentials_client ON token_credentials (client_key);

  -- §3.3: only a 64-bit digest of the nonce key (src/store/nonce-hash.ts). Expiry leads the
  -- key, so purging is a range delete on the primary-key index.
  CREATE TABLE nonces (
    expires_at BIGINT NOT NULL,
    hash BIGINT NOT NULL,
    PRIMARY KEY (expires_at, hash)
  );

  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    owner_id TEXT NOT NULL REFERENCES owners (id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
  );
  CREATE INDEX sessions_owner ON sessions (owner_id);
  CREATE INDEX sessions_expiry ON sessions (expires_at);

  -- Login throttling: hits per key and millisecond, counted over a sliding window.
  CREATE TABLE attempts (
    key TEXT NOT NULL,
    at BIGINT NOT NULL,
    hits INTEGER NOT NULL,
    PRIMARY KEY (key, at)
  );
  `,
  // 2: owners from other identity sources (docs/identity.md): source, stable subject (a local
  // owner's is its id), issuer (OpenID Connect) and display name; username and password hash
  // become optional. Login challenges hold sign-ins handed to an identity provider or a login
  // app, shared by every instance.
  `
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
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
  );
  CREATE INDEX login_challenges_expiry ON login_challenges (expires_at);
  `,
  // 3: an operator may disable a client (its requests are refused, its tokens kept).
  `
  ALTER TABLE clients ADD COLUMN disabled BOOLEAN NOT NULL DEFAULT false;
  `,
  // 4: a nonce is found by its hash alone (which covers client, token, timestamp and nonce),
  // never by its expiry: instances with different timestamp windows, or a restart with
  // another window, compute other expiries for the same request. Of a hash stored twice
  // (replays accepted that way), the later expiry stays.
  `
  DELETE FROM nonces a USING nonces b
    WHERE a.hash = b.hash AND a.expires_at < b.expires_at;
  CREATE UNIQUE INDEX nonces_hash ON nonces (hash);
  `,
  // 5: the session extension: per client, and a token's session (the hash of its handle, and
  // when the session ends).
  `
  ALTER TABLE clients ADD COLUMN session_extension BOOLEAN NOT NULL DEFAULT false;
  ALTER TABLE token_credentials ADD COLUMN session_handle_hash TEXT;
  ALTER TABLE token_credentials ADD COLUMN session_expires_at BIGINT;
  `,
  // 6: a client's own rate limits, per minute (NULL: the server's default).
  `
  ALTER TABLE clients ADD COLUMN requests_per_minute INTEGER;
  ALTER TABLE clients ADD COLUMN failures_per_minute INTEGER;
  `,
  // 7: secrets at rest (src/store/sealing.ts): the id of the key each secret is sealed under,
  // null for one in clear (sealed by the next start with a key, or `latchkey keys reseal`);
  // verifiers kept only as digests (SHA-256, base64url without padding, as the provider's).
  `
  ALTER TABLE clients ADD COLUMN secret_key_id TEXT;
  ALTER TABLE temporary_credentials ADD COLUMN secret_key_id TEXT;
  ALTER TABLE token_credentials ADD COLUMN secret_key_id TEXT;
  UPDATE temporary_credentials
    SET verifier = rtrim(translate(encode(sha256(convert_to(verifier, 'UTF8')), 'base64'),
      '+/', '-_'), '=')
    WHERE verifier IS NOT NULL;
  `,
  // 8: the audit trail of security events (src/store/types.ts AuditStore), newest read first.
  `
  CREATE TABLE audit_events (
    id BIGSERIAL PRIMARY KEY,
    at BIGINT NOT NULL,
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
  // 9: the tokens of a session, found by its handle hash: an import refuses a token whose
  // session another token now holds (renewed since the export; docs/import.md).
  `
  CREATE INDEX token_credentials_session ON token_credentials (session_handle_hash)
    WHERE session_handle_hash IS NOT NULL;
  `,
  // 10: a client's use per UTC day (src/store/usage.ts UsageStore): verified requests and
  // last use, failures by oauth_problem, the owners acted for (one row each: exact counts).
  `
  CREATE TABLE client_usage (
    client_key TEXT NOT NULL,
    day TEXT NOT NULL,
    requests BIGINT NOT NULL,
    last_used_at BIGINT,
    PRIMARY KEY (client_key, day)
  );
  CREATE TABLE client_usage_failures (
    client_key TEXT NOT NULL,
    day TEXT NOT NULL,
    problem TEXT NOT NULL,
    count BIGINT NOT NULL,
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

/** Any constant: it keeps Latchkey's advisory locks apart from the application's. */
const lockClass = 0x4c4b;

export interface MigrateOptions {
  /** Bound on the whole migration, including waiting for another instance's (default 60 s). */
  readonly timeoutMs?: number;
}

/**
 * Brings `schema` (created when missing) up to date and returns how many migrations it applied
 * (0 when current). Every instance may call it at start-up: the transaction first takes an
 * advisory lock on the schema's name, so a second instance waits for the first and then finds
 * nothing to do. A schema newer than this code is refused rather than used.
 *
 * @example await migrate(pool, 'latchkey'); // `latchkey migrate`, ahead of a deploy
 */
export async function migrate(
  pool: Pool,
  schema: string,
  options: MigrateOptions = {},
): Promise<number> {
  const timeoutMs = Math.trunc(options.timeoutMs ?? 60_000);
  const db = openDatabase(pool, schema, { ownsPool: false, queryTimeoutMs: timeoutMs + 1000 });
  const name = db.schema;
  return db.transaction(async (query) => {
    // Longer than the store's per-statement bound: a migration may rewrite a large table.
    await query(`SET LOCAL statement_timeout = ${timeoutMs}`);
    await query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [lockClass, schema]);
    const exists = await query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    // Only when missing: CREATE SCHEMA IF NOT EXISTS would still need the CREATE privilege.
    if (exists.count === 0) await query(`CREATE SCHEMA ${name}`);
    await query(`SET LOCAL search_path TO ${name}`);
    await query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         version INTEGER PRIMARY KEY,
         applied_at BIGINT NOT NULL
       )`,
    );
    const current = await query<{ version: number | null }>(
      'SELECT max(version) AS version FROM schema_migrations',
    );
    const version = current.rows[0]?.version ?? 0;
    if (version > migrations.length) {
      throw new Error(
        `The database schema is version ${version}, newer than this Latchkey knows ` +
          `(${migrations.length}); upgrade Latchkey before opening it.`,
      );
    }
    for (const [index, sql] of migrations.entries()) {
      if (index < version) continue;
      await query(sql);
      await query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [
        index + 1,
        Date.now(),
      ]);
    }
    return migrations.length - version;
  });
}

/** The schema version recorded in `schema`, or 0 when it has none yet. */
export async function schemaVersion(pool: Pool, schema: string): Promise<number> {
  const db = openDatabase(pool, schema, { ownsPool: false, queryTimeoutMs: 5000 });
  const found = await db.query('SELECT to_regclass($1) IS NOT NULL AS present', [
    db.table('schema_migrations'),
  ]);
  if (found.rows[0]?.present !== true) return 0;
  const current = await db.query<{ version: number | null }>(
    `SELECT max(version) AS version FROM ${db.table('schema_migrations')}`,
  );
  return current.rows[0]?.version ?? 0;
}
