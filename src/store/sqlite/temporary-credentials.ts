/**
 * Temporary credentials (RFC 5849 §2.1–2.3) in SQLite. Every state change is one conditional
 * UPDATE whose WHERE clause is the whole precondition, so two racing callers cannot both win.
 */
import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import { sealedTemporaryRow, temporaryColumns, valuesOf } from '../sql/sealed-rows.ts';
import type {
  NewTemporaryCredential,
  NewTokenCredential,
  TemporaryCredentialStore,
} from '../types.ts';
import { method } from './errors.ts';
import type { Sealer } from '../sealing.ts';
import { int, sealedRows } from './row.ts';
import { prepareTokenInsert } from './token-credentials.ts';
import type { Transaction } from './transaction.ts';

export function sqliteTemporaryCredentials(
  db: DatabaseSync,
  transaction: Transaction,
  sealer: Sealer,
): TemporaryCredentialStore {
  const fromRow = sealedRows(sealer);
  const insert = db.prepare(
    `INSERT INTO temporary_credentials (${temporaryColumns.join(', ')}, state)
     VALUES (${temporaryColumns.map(() => '?').join(', ')}, 'issued')`,
  );
  const select = db.prepare('SELECT * FROM temporary_credentials WHERE token = ?');
  const authorize = db.prepare(
    `UPDATE temporary_credentials
     SET state = 'authorized', owner_id = :owner, verifier = :verifier,
         approved_scope = :scope, approved_lifetime = :lifetime
     WHERE token = :token AND state = 'issued' AND expires_at > :now`,
  );
  const deny = db.prepare(
    `UPDATE temporary_credentials SET state = 'denied'
     WHERE token = ? AND state = 'issued' AND expires_at > ?`,
  );
  const attempt = db.prepare(
    `UPDATE temporary_credentials SET verifier_failures = verifier_failures + 1
     WHERE token = ? AND verifier_failures < ? RETURNING verifier_failures`,
  );
  const consume = db.prepare(
    `UPDATE temporary_credentials SET state = 'consumed'
     WHERE token = ? AND client_key = ? AND state = 'authorized' AND expires_at > ?
     RETURNING *`,
  );
  const insertToken = prepareTokenInsert(db, sealer);
  const remove = db.prepare('DELETE FROM temporary_credentials WHERE token = ?');
  const purge = db.prepare('DELETE FROM temporary_credentials WHERE expires_at < ?');

  return {
    create: method((credential: NewTemporaryCredential) => {
      insert.run(
        ...(valuesOf(temporaryColumns, sealedTemporaryRow(credential, sealer)) as SQLInputValue[]),
      );
    }),
    find: method((token: string) => {
      const row = select.get(token);
      return row === undefined ? undefined : fromRow.toTemporaryCredential(row);
    }),
    authorize: method(
      (
        token: string,
        grant: { ownerId: string; verifier: string; scope: string; lifetime: number | null },
        now: number,
      ) => {
        const { ownerId: owner, verifier, scope, lifetime } = grant;
        return authorize.run({ token, owner, verifier, scope, lifetime, now }).changes > 0;
      },
    ),
    deny: method((token: string, now: number) => deny.run(token, now).changes > 0),
    // No try left, or an unknown token: 0.
    recordVerifierAttempt: method((token: string, limit: number) => {
      const row = attempt.get(token, limit);
      return row === undefined ? 0 : int(row, 'verifier_failures');
    }),
    // §2.3: consuming and issuing commit together or not at all.
    exchange: method((token: string, clientKey: string, now: number, issue: NewTokenCredential) =>
      transaction(() => {
        const row = consume.get(token, clientKey, now);
        if (row === undefined) return undefined;
        insertToken(issue);
        return fromRow.toTemporaryCredential(row);
      }),
    ),
    remove: method((token: string) => remove.run(token).changes > 0),
    purgeExpired: method((now: number) => Number(purge.run(now).changes)),
  };
}
