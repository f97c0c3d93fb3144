/** Owners' remembered consents in SQLite, one per (owner, client). */
import type { DatabaseSync } from 'node:sqlite';
import type { ConsentStore, RememberedConsent } from '../types.ts';
import { method } from './errors.ts';
import { fromRow } from './row.ts';

export function sqliteConsents(db: DatabaseSync): ConsentStore {
  const upsert = db.prepare(
    `INSERT INTO remembered_consents (owner_id, client_key, scope, since) VALUES (?, ?, ?, ?)
     ON CONFLICT (owner_id, client_key) DO UPDATE SET scope = excluded.scope`,
  );
  const select = db.prepare(
    'SELECT * FROM remembered_consents WHERE owner_id = ? AND client_key = ?',
  );
  const selectForOwner = db.prepare(
    'SELECT * FROM remembered_consents WHERE owner_id = ? ORDER BY since, client_key',
  );
  const remove = db.prepare(
    'DELETE FROM remembered_consents WHERE owner_id = ? AND client_key = ?',
  );

  return {
    remember: method((consent: RememberedConsent) => {
      upsert.run(consent.ownerId, consent.clientKey, consent.scope, consent.since);
    }),
    find: method((ownerId: string, clientKey: string) => {
      const row = select.get(ownerId, clientKey);
      return row === undefined ? undefined : fromRow.toRememberedConsent(row);
    }),
    list: method((ownerId: string) => selectForOwner.all(ownerId).map(fromRow.toRememberedConsent)),
    forget: method(
      (ownerId: string, clientKey: string) => remove.run(ownerId, clientKey).changes > 0,
    ),
  };
}
