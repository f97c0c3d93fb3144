/** Signed-in owners' browser sessions in either SQL store, through its runner (runner.ts). */
import type { Session, SessionStore } from '../types.ts';
import type { Mappers, SqlRunner } from './runner.ts';

export function sqlSessions(sql: SqlRunner, fromRow: Mappers): SessionStore {
  const sessions = sql.table('sessions');

  return {
    async create(session: Session) {
      await sql.run(
        `INSERT INTO ${sessions} (id, owner_id, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
        [session.id, session.ownerId, session.createdAt, session.expiresAt],
      );
    },
    async find(id: string, now: number) {
      const row = await sql.one(`SELECT * FROM ${sessions} WHERE id = $1 AND expires_at > $2`, [
        id,
        now,
      ]);
      return row === undefined ? undefined : fromRow.toSession(row);
    },
    remove: async (id: string) =>
      (await sql.run(`DELETE FROM ${sessions} WHERE id = $1`, [id])) > 0,
    removeForOwner: (ownerId: string) =>
      sql.run(`DELETE FROM ${sessions} WHERE owner_id = $1`, [ownerId]),
    purgeExpired: (now: number) => sql.run(`DELETE FROM ${sessions} WHERE expires_at < $1`, [now]),
  };
}
