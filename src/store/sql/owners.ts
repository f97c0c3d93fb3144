/**
 * Resource owners in either SQL store, through its runner (runner.ts). Only the KDF hash of a
 * local owner's password is ever stored.
 */
import type { NewOwner, OwnerIdentity, OwnerStore } from '../types.ts';
import type { Mappers, Row, SqlRunner } from './runner.ts';

export function sqlOwners(sql: SqlRunner, fromRow: Mappers, now: () => number): OwnerStore {
  const owners = sql.table('owners');
  const toOwner = (row: Row | undefined) => (row === undefined ? undefined : fromRow.toOwner(row));

  return {
    async create(owner: NewOwner) {
      const row = await sql.one(
        `INSERT INTO ${owners}
           (id, source, subject, issuer, name, username, password_hash, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
        [
          owner.id,
          owner.source,
          owner.subject,
          owner.issuer,
          owner.name,
          owner.username,
          owner.passwordHash,
          owner.createdAt ?? now(),
        ],
      );
      if (row === undefined) throw new Error('INSERT … RETURNING returned no row.');
      return fromRow.toOwner(row);
    },
    findById: async (id: string) =>
      toOwner(await sql.one(`SELECT * FROM ${owners} WHERE id = $1`, [id])),
    findByUsername: async (username: string) =>
      toOwner(await sql.one(`SELECT * FROM ${owners} WHERE username = $1`, [username])),
    findByIdentity: async (identity: OwnerIdentity) =>
      toOwner(
        await sql.one(
          `SELECT * FROM ${owners}
           WHERE source = $1 AND coalesce(issuer, '') = $2 AND subject = $3`,
          [identity.source, identity.issuer ?? '', identity.subject],
        ),
      ),
    list: async () =>
      (await sql.all(`SELECT * FROM ${owners} ORDER BY name, id`)).map(fromRow.toOwner),
    setPasswordHash: async (id: string, passwordHash: string) =>
      (await sql.run(`UPDATE ${owners} SET password_hash = $2 WHERE id = $1`, [id, passwordHash])) >
      0,
    rename: async (id: string, name: string) =>
      (await sql.run(`UPDATE ${owners} SET name = $2 WHERE id = $1`, [id, name])) > 0,
    // Credentials issued for the owner and its sessions go with it: ON DELETE CASCADE.
    remove: async (id: string) => (await sql.run(`DELETE FROM ${owners} WHERE id = $1`, [id])) > 0,
  };
}
