/** Resource owner accounts in PostgreSQL; the password only as a KDF hash. */
import type { Owner, OwnerStore } from '../types.ts';
import type { Database } from './database.ts';
import { first, fromRow } from './row.ts';

export function postgresOwners(db: Database, now: () => number): OwnerStore {
  const owners = db.table('owners');

  return {
    async create(owner: Omit<Owner, 'createdAt'> & { readonly createdAt?: number }) {
      const { rows } = await db.query(
        `INSERT INTO ${owners} (id, username, password_hash, created_at)
         VALUES ($1, $2, $3, $4) RETURNING *`,
        [owner.id, owner.username, owner.passwordHash, owner.createdAt ?? now()],
      );
      return fromRow.toOwner(first(rows));
    },
    async findById(id: string) {
      const { rows } = await db.query(`SELECT * FROM ${owners} WHERE id = $1`, [id]);
      return rows[0] === undefined ? undefined : fromRow.toOwner(rows[0]);
    },
    async findByUsername(username: string) {
      const { rows } = await db.query(`SELECT * FROM ${owners} WHERE username = $1`, [username]);
      return rows[0] === undefined ? undefined : fromRow.toOwner(rows[0]);
    },
    async list() {
      return (await db.query(`SELECT * FROM ${owners} ORDER BY username`)).rows.map(
        fromRow.toOwner,
      );
    },
    async setPasswordHash(id: string, passwordHash: string) {
      const result = await db.query(`UPDATE ${owners} SET password_hash = $2 WHERE id = $1`, [
        id,
        passwordHash,
      ]);
      return result.count > 0;
    },
    // Credentials issued for the owner and its sessions go with it: ON DELETE CASCADE.
    async remove(id: string) {
      return (await db.query(`DELETE FROM ${owners} WHERE id = $1`, [id])).count > 0;
    },
  };
}
