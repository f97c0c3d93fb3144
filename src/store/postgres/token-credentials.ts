/** Token credentials (RFC 5849 §2.3) in PostgreSQL: the owner's grant, until expiry or revocation. */
import type { NewTokenCredential, TokenCredential, TokenCredentialStore } from '../types.ts';
import type { Database } from './database.ts';
import { sealedIn, type Sealer } from '../sealing.ts';
import { sealedTokenRow, tokenColumns, valuesOf } from '../sql/sealed-rows.ts';
import { first, int, sealedRows, type Row } from './row.ts';

/**
 * Keeps the grant locks apart from the other advisory locks (migrations.ts, attempts.ts) and
 * the application's.
 */
const lockClass = 0x4c4d;

/**
 * Renewal and the owner's revocation take this lock on the grant (owner and client) first, so
 * they run one after the other. Under READ COMMITTED a revocation's UPDATE that waited on the
 * row a renewal was replacing would skip the deleted row and never see its successor; with
 * the lock, the revocation's UPDATE starts after the renewal committed (and sees the new
 * row), or the renewal starts after the revocation committed (and finds its token revoked).
 */
const lockGrant = 'SELECT pg_advisory_xact_lock($1, hashtext($2))';
const grantName = (ownerId: string, clientKey: string) => `${ownerId} ${clientKey}`;

/** The statements on the store's table, written once per store (find runs on every request). */
function statements(tokens: string) {
  return {
    insert: `INSERT INTO ${tokens} (${tokenColumns.join(', ')})
      VALUES (${tokenColumns.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING *`,
    find: `SELECT * FROM ${tokens} WHERE token = $1`,
    // A NULL parameter leaves its condition out, so one statement serves all four filters.
    list: `SELECT * FROM ${tokens}
      WHERE ($1::text IS NULL OR owner_id = $1) AND ($2::text IS NULL OR client_key = $2)
      ORDER BY issued_at, token`,
    revoke: `UPDATE ${tokens} SET revoked_at = $2 WHERE token = $1 AND revoked_at IS NULL`,
    revokeGrant: `UPDATE ${tokens} SET revoked_at = $3
      WHERE owner_id = $1 AND client_key = $2 AND revoked_at IS NULL
        AND (expires_at IS NULL OR expires_at > $3
          OR (session_handle_hash IS NOT NULL
            AND (session_expires_at IS NULL OR session_expires_at > $3)))`,
    // One statement after the grant's lock (the old token's grant, which the DELETE checks):
    // the DELETE takes the old row's lock, so a concurrent renewal waits and then finds it
    // gone; the INSERT runs once per deleted row, so never for the loser.
    renew: `WITH renewed AS (
        DELETE FROM ${tokens}
        WHERE token = $1 AND session_handle_hash = $2 AND revoked_at IS NULL
          AND (session_expires_at IS NULL OR session_expires_at > $3)
          AND client_key = $6 AND owner_id = $7
        RETURNING token
      )
      INSERT INTO ${tokens} (token, secret, client_key, owner_id, scope, issued_at,
        expires_at, session_handle_hash, session_expires_at, secret_key_id)
      SELECT $4::text, $5::text, $6::text, $7::text, $8::text, $9::bigint, $10::bigint,
        $11::text, $12::bigint, $13::text
      FROM renewed
      RETURNING *`,
    // GREATEST ignores NULL, and batches from several instances may arrive out of order: last
    // use never moves back; COALESCE keeps the first device hint written. Rows are locked in
    // token order first, so two overlapping batches cannot deadlock each other.
    touch: `WITH batch AS (
        SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[]) AS batch (token, at, device)
      ), locked AS (
        SELECT t.token FROM ${tokens} t JOIN batch USING (token) ORDER BY t.token FOR UPDATE OF t
      )
      UPDATE ${tokens} t SET last_used_at = GREATEST(t.last_used_at, batch.at),
        device_hint = COALESCE(t.device_hint, batch.device)
      FROM batch JOIN locked USING (token)
      WHERE t.token = batch.token`,
    count: `SELECT count(*) AS n FROM ${tokens}`,
  } as const;
}

/** The values of the renewal statement: the old token's conditions, then the new row. */
function renewalValues(
  token: string,
  handleHash: string,
  now: number,
  renewed: NewTokenCredential,
  sealer: Sealer,
): unknown[] {
  const secret = sealer.seal(renewed.secret, sealedIn.tokenCredential(renewed.token));
  return [
    token,
    handleHash,
    now,
    renewed.token,
    secret.value,
    renewed.clientKey,
    renewed.ownerId,
    renewed.scope,
    renewed.issuedAt,
    renewed.expiresAt,
    renewed.sessionHandleHash ?? null,
    renewed.sessionExpiresAt ?? null,
    secret.keyId,
  ];
}

/** Runs `sql` in a transaction that holds the grant's lock first (lockGrant above). */
function underGrantLock(
  db: Database,
  ownerId: string,
  clientKey: string,
  sql: string,
  values: readonly unknown[],
) {
  return db.transaction(async (query) => {
    await query(lockGrant, [lockClass, grantName(ownerId, clientKey)]);
    return query(sql, values);
  });
}

export function postgresTokenCredentials(db: Database, sealer: Sealer): TokenCredentialStore {
  const sql = statements(db.table('token_credentials'));
  const fromRow = sealedRows(sealer);
  const toToken = (row: Row | undefined): TokenCredential | undefined =>
    row === undefined ? undefined : fromRow.toTokenCredential(row);

  return {
    async create(credential: NewTokenCredential) {
      const values = valuesOf(tokenColumns, sealedTokenRow(credential, sealer));
      const { rows } = await db.query(sql.insert, values);
      return fromRow.toTokenCredential(first(rows));
    },
    find: async (token: string) => toToken((await db.query(sql.find, [token])).rows[0]),
    async list(filter?: { readonly ownerId?: string; readonly clientKey?: string }) {
      const values = [filter?.ownerId ?? null, filter?.clientKey ?? null];
      return (await db.query(sql.list, values)).rows.map(fromRow.toTokenCredential);
    },
    revoke: async (token: string, now: number) =>
      (await db.query(sql.revoke, [token, now])).count > 0,
    revokeGrant: async (ownerId: string, clientKey: string, now: number) =>
      (await underGrantLock(db, ownerId, clientKey, sql.revokeGrant, [ownerId, clientKey, now]))
        .count,
    async renew(token: string, handleHash: string, now: number, renewed: NewTokenCredential) {
      const values = renewalValues(token, handleHash, now, renewed, sealer);
      const { ownerId, clientKey } = renewed;
      return toToken((await underGrantLock(db, ownerId, clientKey, sql.renew, values)).rows[0]);
    },
    async touch(lastUsed: ReadonlyMap<string, number>, devices?: ReadonlyMap<string, string>) {
      if (lastUsed.size === 0) return;
      const tokenList = [...lastUsed.keys()];
      await db.query(sql.touch, [
        tokenList,
        [...lastUsed.values()],
        tokenList.map((token) => devices?.get(token) ?? null),
      ]);
    },
    async count() {
      const { rows } = await db.query(sql.count);
      return rows[0] === undefined ? 0 : int(rows[0], 'n');
    },
  };
}
