/** Token credentials (RFC 5849 §2.3): the owner's grant to a client, until expiry or revocation. */
import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import { sealedTokenRow, tokenColumns, valuesOf } from '../sql/sealed-rows.ts';
import type { NewTokenCredential, TokenCredential, TokenCredentialStore } from '../types.ts';
import { method } from './errors.ts';
import type { Sealer } from '../sealing.ts';
import { sealedRows } from './row.ts';
import type { Transaction } from './transaction.ts';

/** The one INSERT, shared with the temporary-credential exchange (§2.3). */
export function prepareTokenInsert(
  db: DatabaseSync,
  sealer: Sealer,
): (credential: NewTokenCredential) => TokenCredential {
  const fromRow = sealedRows(sealer);
  const insert = db.prepare(
    `INSERT INTO token_credentials (${tokenColumns.join(', ')})
     VALUES (${tokenColumns.map(() => '?').join(', ')}) RETURNING *`,
  );
  return (credential) => {
    const row = insert.get(
      ...(valuesOf(tokenColumns, sealedTokenRow(credential, sealer)) as SQLInputValue[]),
    );
    if (row === undefined) throw new Error('INSERT … RETURNING returned no row.');
    return fromRow.toTokenCredential(row);
  };
}

export function sqliteTokenCredentials(
  db: DatabaseSync,
  transaction: Transaction,
  sealer: Sealer,
): TokenCredentialStore {
  const fromRow = sealedRows(sealer);
  const insert = prepareTokenInsert(db, sealer);
  // A primary-key search on token: one b-tree descent even with millions of tokens.
  const select = db.prepare('SELECT * FROM token_credentials WHERE token = ?');
  const selectAll = db.prepare('SELECT * FROM token_credentials ORDER BY issued_at, token');
  const selectByOwner = db.prepare(
    'SELECT * FROM token_credentials WHERE owner_id = ? ORDER BY issued_at, token',
  );
  const selectByClient = db.prepare(
    'SELECT * FROM token_credentials WHERE client_key = ? ORDER BY issued_at, token',
  );
  const selectByGrant = db.prepare(
    'SELECT * FROM token_credentials WHERE owner_id = ? AND client_key = ? ORDER BY issued_at, token',
  );
  const revoke = db.prepare(
    'UPDATE token_credentials SET revoked_at = ? WHERE token = ? AND revoked_at IS NULL',
  );
  // A token whose session can still renew it is live, expired or not: revoking the grant
  // ends the session too. One statement, so it holds the database's write lock throughout,
  // as a renewal's BEGIN IMMEDIATE does: a renewal runs wholly before it (and its new token
  // is revoked here) or wholly after (and finds its token revoked).
  const revokeGrant = db.prepare(
    `UPDATE token_credentials SET revoked_at = :now
     WHERE owner_id = :owner AND client_key = :client AND revoked_at IS NULL
       AND (expires_at IS NULL OR expires_at > :now
         OR (session_handle_hash IS NOT NULL
           AND (session_expires_at IS NULL OR session_expires_at > :now)))`,
  );
  // Session extension: the old token goes with its handle, in the same transaction as the
  // new one is created; the conditions make a second renewal of the same token find nothing.
  const removeRenewed = db.prepare(
    `DELETE FROM token_credentials
     WHERE token = :token AND session_handle_hash = :handle AND revoked_at IS NULL
       AND (session_expires_at IS NULL OR session_expires_at > :now)`,
  );
  // max(): batches from several instances may arrive out of order; last use never moves back.
  // coalesce(): the device hint is the first one written, never replaced.
  const touch = db.prepare(
    `UPDATE token_credentials SET last_used_at = max(coalesce(last_used_at, :at), :at),
       device_hint = coalesce(device_hint, :device)
     WHERE token = :token`,
  );
  const count = db.prepare('SELECT count(*) AS n FROM token_credentials');

  return {
    create: method((credential: NewTokenCredential) => insert(credential)),
    find: method((token: string) => {
      const row = select.get(token);
      return row === undefined ? undefined : fromRow.toTokenCredential(row);
    }),
    list: method((filter?: { readonly ownerId?: string; readonly clientKey?: string }) => {
      const { ownerId, clientKey } = filter ?? {};
      const rows =
        ownerId !== undefined && clientKey !== undefined
          ? selectByGrant.all(ownerId, clientKey)
          : ownerId !== undefined
            ? selectByOwner.all(ownerId)
            : clientKey !== undefined
              ? selectByClient.all(clientKey)
              : selectAll.all();
      return rows.map(fromRow.toTokenCredential);
    }),
    revoke: method((token: string, now: number) => revoke.run(now, token).changes > 0),
    revokeGrant: method((ownerId: string, clientKey: string, now: number) =>
      Number(revokeGrant.run({ now, owner: ownerId, client: clientKey }).changes),
    ),
    renew: method((token: string, handleHash: string, now: number, renewed: NewTokenCredential) =>
      transaction(() =>
        removeRenewed.run({ token, handle: handleHash, now }).changes > 0
          ? insert(renewed)
          : undefined,
      ),
    ),
    touch: method(
      (lastUsed: ReadonlyMap<string, number>, devices?: ReadonlyMap<string, string>) => {
        if (lastUsed.size === 0) return;
        transaction(() => {
          for (const [token, at] of lastUsed) {
            touch.run({ token, at, device: devices?.get(token) ?? null });
          }
        });
      },
    ),
    count: method(() => Number(count.get()?.n ?? 0)),
  };
}
