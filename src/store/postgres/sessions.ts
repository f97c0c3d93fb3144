/** Signed-in owners' browser sessions in PostgreSQL. */
import type { Session, SessionStore } from '../types.ts';
import type { Database } from './database.ts';
import { fromRow } from './row.ts';

export function postgresSessions(db: Database): SessionStore {
  const sessions = db.table('sessions');

  return {
    async create(session: Session) {
      await db.query(
        `INSERT INTO ${sessions} (id, owner_id, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
        [session.id, session.ownerId, session.createdAt, session.expiresAt],
      );
    },
    async find(id: string, now: number) {
      const { rows } = await db.query(
        `SELECT * FROM ${sessions} WHERE id = $1 AND expires_at > $2`,
        [id, now],
      );
      return rows[0] === undefined ? undefined : fromRow.toSession(rows[0]);
    },
    async remove(id: string) {
      return (await db.query(`DELETE FROM ${sessions} WHERE id = $1`, [id])).count > 0;
    },
    async removeForOwner(ownerId: string) {
      return (await db.query(`DELETE FROM ${sessions} WHERE owner_id = $1`, [ownerId])).count;
    },
    async purgeExpired(now: number) {
      return (await db.query(`DELETE FROM ${sessions} WHERE expires_at < $1`, [now])).count;
    },
  };
}
