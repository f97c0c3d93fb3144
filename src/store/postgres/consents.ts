/** Owners' remembered consents in PostgreSQL, one per (owner, client). */
import type { ConsentStore, RememberedConsent } from '../types.ts';
import type { Database } from './database.ts';
import { fromRow } from './row.ts';

export function postgresConsents(db: Database): ConsentStore {
  const consents = db.table('remembered_consents');

  return {
    async remember(consent: RememberedConsent) {
      await db.query(
        `INSERT INTO ${consents} (owner_id, client_key, scope, since) VALUES ($1, $2, $3, $4)
         ON CONFLICT (owner_id, client_key) DO UPDATE SET scope = excluded.scope`,
        [consent.ownerId, consent.clientKey, consent.scope, consent.since],
      );
    },
    async find(ownerId: string, clientKey: string) {
      const { rows } = await db.query(
        `SELECT * FROM ${consents} WHERE owner_id = $1 AND client_key = $2`,
        [ownerId, clientKey],
      );
      return rows[0] === undefined ? undefined : fromRow.toRememberedConsent(rows[0]);
    },
    async list(ownerId: string) {
      const { rows } = await db.query(
        `SELECT * FROM ${consents} WHERE owner_id = $1 ORDER BY since, client_key`,
        [ownerId],
      );
      return rows.map((row) => fromRow.toRememberedConsent(row));
    },
    async forget(ownerId: string, clientKey: string) {
      const { rows } = await db.query(
        `DELETE FROM ${consents} WHERE owner_id = $1 AND client_key = $2 RETURNING owner_id`,
        [ownerId, clientKey],
      );
      return rows.length > 0;
    },
  };
}
