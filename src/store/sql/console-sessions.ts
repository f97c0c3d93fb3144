/** The operator console's sessions in either SQL store, through its runner (runner.ts). */
import type { ColumnReader } from '../rows.ts';
import type { ConsoleSessionStore } from '../types.ts';
import type { Row, SqlRunner } from './runner.ts';

export function sqlConsoleSessions(sql: SqlRunner, read: ColumnReader<Row>): ConsoleSessionStore {
  const sessions = sql.table('console_sessions');
  return {
    async create(session) {
      await sql.run(`INSERT INTO ${sessions} (id, token_id, expires_at) VALUES ($1, $2, $3)`, [
        session.id,
        session.tokenId,
        session.expiresAt,
      ]);
    },
    async find(id, now) {
      const row = await sql.one(`SELECT * FROM ${sessions} WHERE id = $1 AND expires_at > $2`, [
        id,
        now,
      ]);
      return row === undefined
        ? undefined
        : {
            id: read.text(row, 'id'),
            tokenId: read.text(row, 'token_id'),
            expiresAt: read.int(row, 'expires_at'),
          };
    },
    remove: async (id) => (await sql.run(`DELETE FROM ${sessions} WHERE id = $1`, [id])) > 0,
    purgeExpired: (now) => sql.run(`DELETE FROM ${sessions} WHERE expires_at <= $1`, [now]),
  };
}
