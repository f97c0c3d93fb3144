/** Signed-in owners' browser sessions in PostgreSQL. */
import type { Session, SessionStore } from '../types.ts';
import type { Database } from './database.ts';
import { int, text, type Row } from './row.ts';

function toSession(row: Row): Session {
  return {
    id: text(row, 'id'),
    ownerId: text(row, 'owner_id'),
    createdAt: int(row, 'created_at'),
    expiresAt: int(row, 'expires_at'),
  };
}

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
      return rows[0] === undefined ? undefined : toSession(rows[0]);
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
