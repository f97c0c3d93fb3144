/**
 * The first schema of both SQL stores, written once with the types each dialect spells its
 * own way (migrations.ts takes it as its first step).
 */
/** The column types the dialects spell differently. */
export interface Types {
  /** 64-bit integers: times (milliseconds in both), lifetimes, nonce hashes. */
  readonly int64: string;
  readonly bool: string;
  /** Lists (callbacks, signature methods): JSON text in SQLite, TEXT[] in PostgreSQL. */
  readonly list: string;
  /**
   * SQLite: tables keyed by a token or id are WITHOUT ROWID, so a lookup by that key is one
   * primary-key b-tree search (no separate index to consult).
   */
  readonly keyed: string;
  /** The false of a boolean column's default. */
  readonly no: string;
  /** A primary key numbered by the database, in insertion order. */
  readonly serial: string;
}

export function firstSchema(t: Types): string {
  return `
  CREATE TABLE owners (
    id TEXT PRIMARY KEY,
    username TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    created_at ${t.int64} NOT NULL
  )${t.keyed};

  -- developer_id is informational (who registered the client in the portal), not a
  -- foreign key: removing that account does not remove the client.
  CREATE TABLE clients (
    key TEXT PRIMARY KEY,
    secret TEXT NOT NULL,
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    website TEXT,
    callbacks ${t.list} NOT NULL,
    signature_methods ${t.list} NOT NULL,
    rsa_public_key TEXT,
    constrained_device ${t.bool} NOT NULL,
    verified ${t.bool} NOT NULL,
    developer_id TEXT,
    created_at ${t.int64} NOT NULL
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
    approved_lifetime ${t.int64},
    verifier_failures INTEGER NOT NULL DEFAULT 0,
    created_at ${t.int64} NOT NULL,
    expires_at ${t.int64} NOT NULL
  )${t.keyed};
  CREATE INDEX temporary_credentials_client ON temporary_credentials (client_key);
  CREATE INDEX temporary_credentials_owner ON temporary_credentials (owner_id);
  CREATE INDEX temporary_credentials_expiry ON temporary_credentials (expires_at);

  CREATE TABLE token_credentials (
    token TEXT PRIMARY KEY,
    secret TEXT NOT NULL,
    client_key TEXT NOT NULL REFERENCES clients (key) ON DELETE CASCADE,
    owner_id TEXT NOT NULL REFERENCES owners (id) ON DELETE CASCADE,
    scope TEXT NOT NULL,
    issued_at ${t.int64} NOT NULL,
    expires_at ${t.int64},
    last_used_at ${t.int64},
    revoked_at ${t.int64}
  )${t.keyed};
  CREATE INDEX token_credentials_grant ON token_credentials (owner_id, client_key);
  CREATE INDEX token_credentials_client ON token_credentials (client_key);

  -- §3.3: only a 64-bit digest of the nonce key (src/store/nonce-hash.ts). Expiry leads the
  -- key, so purging is a range delete on the primary key.
  CREATE TABLE nonces (
    expires_at ${t.int64} NOT NULL,
    hash ${t.int64} NOT NULL,
    PRIMARY KEY (expires_at, hash)
  )${t.keyed};

  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    owner_id TEXT NOT NULL REFERENCES owners (id) ON DELETE CASCADE,
    created_at ${t.int64} NOT NULL,
    expires_at ${t.int64} NOT NULL
  )${t.keyed};
  CREATE INDEX sessions_owner ON sessions (owner_id);
  CREATE INDEX sessions_expiry ON sessions (expires_at);

  -- Login throttling: hits per key and millisecond, counted over a sliding window.
  CREATE TABLE attempts (
    key TEXT NOT NULL,
    at ${t.int64} NOT NULL,
    hits INTEGER NOT NULL,
    PRIMARY KEY (key, at)
  )${t.keyed};
  `;
}
