/** Owners' remembered consents in either SQL store, one per (owner, client), through its runner. */
import type { ConsentStore, RememberedConsent } from '../types.ts';
import type { Mappers, Row, SqlRunner } from './runner.ts';

export function sqlConsents(sql: SqlRunner, fromRow: Mappers): ConsentStore {
  const consents = sql.table('remembered_consents');
  const toConsent = (row: Row | undefined) =>
    row === undefined ? undefined : fromRow.toRememberedConsent(row);

  return {
    async remember(consent: RememberedConsent) {
      await sql.run(
        `INSERT INTO ${consents} (owner_id, client_key, scope, since) VALUES ($1, $2, $3, $4)
         ON CONFLICT (owner_id, client_key) DO UPDATE SET scope = excluded.scope`,
        [consent.ownerId, consent.clientKey, consent.scope, consent.since],
      );
    },
    find: async (ownerId: string, clientKey: string) =>
      toConsent(
        await sql.one(`SELECT * FROM ${consents} WHERE owner_id = $1 AND client_key = $2`, [
          ownerId,
          clientKey,
        ]),
      ),
    list: async (ownerId: string) =>
      (
        await sql.all(`SELECT * FROM ${consents} WHERE owner_id = $1 ORDER BY since, client_key`, [
          ownerId,
        ])
      ).map(fromRow.toRememberedConsent),
    forget: async (ownerId: string, clientKey: string) =>
      (await sql.run(`DELETE FROM ${consents} WHERE owner_id = $1 AND client_key = $2`, [
        ownerId,
        clientKey,
      ])) > 0,
  };
}
