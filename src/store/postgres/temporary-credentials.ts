/**
 * Temporary credentials (RFC 5849 §2.1–2.3) in PostgreSQL. Every state change is one
 * conditional UPDATE whose WHERE clause is the whole precondition: the row lock makes a racing
 * second caller re-check it after the first commits, and find it false.
 */
import type {
  NewTemporaryCredential,
  NewTokenCredential,
  TemporaryCredentialStore,
} from '../types.ts';
import type { Database } from './database.ts';
import { sealedTemporaryRow, temporaryColumns, valuesOf } from '../sql/sealed-rows.ts';
import { sealedIn, type Sealer } from '../sealing.ts';
import { int, sealedRows } from './row.ts';

export function postgresTemporaryCredentials(
  db: Database,
  sealer: Sealer,
): TemporaryCredentialStore {
  const temporary = db.table('temporary_credentials');
  const fromRow = sealedRows(sealer);
  const tokens = db.table('token_credentials');

  // §2.3 in one statement: the UPDATE consumes, the INSERT issues once per consumed row (so
  // never when nothing was consumed), and both commit together; a taken token fails the whole
  // statement and leaves the credential as it was. The casts: parameters in a SELECT list
  // would otherwise be typed text.
  const exchangeSql = `
    WITH consumed AS (
      UPDATE ${temporary} SET state = 'consumed'
      WHERE token = $1 AND client_key = $2 AND state = 'authorized' AND expires_at > $3
      RETURNING *
    ), issued AS (
      INSERT INTO ${tokens} (token, secret, client_key, owner_id, scope, issued_at, expires_at,
        session_handle_hash, session_expires_at, secret_key_id)
      SELECT $4::text, $5::text, $6::text, $7::text, $8::text, $9::bigint, $10::bigint,
        $11::text, $12::bigint, $13::text
      FROM consumed
    )
    SELECT * FROM consumed`;

  return {
    async create(credential: NewTemporaryCredential) {
      await db.query(
        `INSERT INTO ${temporary} (${temporaryColumns.join(', ')}, state)
         VALUES (${temporaryColumns.map((_, i) => `$${i + 1}`).join(', ')}, 'issued')`,
        valuesOf(temporaryColumns, sealedTemporaryRow(credential, sealer)),
      );
    },
    async find(token: string) {
      const { rows } = await db.query(`SELECT * FROM ${temporary} WHERE token = $1`, [token]);
      return rows[0] === undefined ? undefined : fromRow.toTemporaryCredential(rows[0]);
    },
    async authorize(token, grant, now) {
      const result = await db.query(
        `UPDATE ${temporary}
         SET state = 'authorized', owner_id = $2, verifier = $3, approved_scope = $4,
             approved_lifetime = $5
         WHERE token = $1 AND state = 'issued' AND expires_at > $6`,
        [token, grant.ownerId, grant.verifier, grant.scope, grant.lifetime, now],
      );
      return result.count > 0;
    },
    async deny(token: string, now: number) {
      const result = await db.query(
        `UPDATE ${temporary} SET state = 'denied'
         WHERE token = $1 AND state = 'issued' AND expires_at > $2`,
        [token, now],
      );
      return result.count > 0;
    },
    // No try left, or an unknown token: 0. The row lock makes a racing try re-check the
    // count after the one before it commits.
    async recordVerifierAttempt(token: string, limit: number) {
      const { rows } = await db.query(
        `UPDATE ${temporary} SET verifier_failures = verifier_failures + 1
         WHERE token = $1 AND verifier_failures < $2 RETURNING verifier_failures`,
        [token, limit],
      );
      return rows[0] === undefined ? 0 : int(rows[0], 'verifier_failures');
    },
    async exchange(token: string, clientKey: string, now: number, issue: NewTokenCredential) {
      const secret = sealer.seal(issue.secret, sealedIn.tokenCredential(issue.token));
      const { rows } = await db.query(exchangeSql, [
        token,
        clientKey,
        now,
        issue.token,
        secret.value,
        issue.clientKey,
        issue.ownerId,
        issue.scope,
        issue.issuedAt,
        issue.expiresAt,
        issue.sessionHandleHash ?? null,
        issue.sessionExpiresAt ?? null,
        secret.keyId,
      ]);
      return rows[0] === undefined ? undefined : fromRow.toTemporaryCredential(rows[0]);
    },
    async remove(token: string) {
      return (await db.query(`DELETE FROM ${temporary} WHERE token = $1`, [token])).count > 0;
    },
    async purgeExpired(now: number) {
      return (await db.query(`DELETE FROM ${temporary} WHERE expires_at < $1`, [now])).count;
    },
  };
}
