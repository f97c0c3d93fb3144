/** Resource owners in PostgreSQL; a local owner's password only as a KDF hash. */
import type { NewOwner, OwnerIdentity, OwnerStore } from '../types.ts';
import type { Database } from './database.ts';
import { first, fromRow } from './row.ts';

export function postgresOwners(db: Database, now: () => number): OwnerStore {
  const owners = db.table('owners');

  return {
    async create(owner: NewOwner) {
      const { rows } = await db.query(
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
    async findByIdentity(identity: OwnerIdentity) {
      const { rows } = await db.query(
        `SELECT * FROM ${owners}
         WHERE source = $1 AND coalesce(issuer, '') = $2 AND subject = $3`,
        [identity.source, identity.issuer ?? '', identity.subject],
      );
      return rows[0] === undefined ? undefined : fromRow.toOwner(rows[0]);
    },
    async list() {
      return (await db.query(`SELECT * FROM ${owners} ORDER BY name, id`)).rows.map(
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
    async rename(id: string, name: string) {
      const result = await db.query(`UPDATE ${owners} SET name = $2 WHERE id = $1`, [id, name]);
      return result.count > 0;
    },
    // Credentials issued for the owner and its sessions go with it: ON DELETE CASCADE.
    async remove(id: string) {
      return (await db.query(`DELETE FROM ${owners} WHERE id = $1`, [id])).count > 0;
    },
  };
}
