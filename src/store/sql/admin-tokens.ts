/** Admin API tokens in either SQL store, through its runner (runner.ts): digests only. */
import { toAdminToken } from '../admin-token-rows.ts';
import type { ColumnReader } from '../rows.ts';
import type { AdminToken, AdminTokenStore } from '../types.ts';
import type { Row, SqlRunner } from './runner.ts';

export function sqlAdminTokens(sql: SqlRunner, read: ColumnReader<Row>): AdminTokenStore {
  const tokens = sql.table('admin_tokens');
  return {
    async create(token: AdminToken) {
      const row = await sql.one(
        `INSERT INTO ${tokens} (id, name, role, digest, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
        [token.id, token.name, token.role, token.digest, token.createdAt, token.expiresAt],
      );
      if (row === undefined) throw new Error('INSERT … RETURNING returned no row.');
      return toAdminToken(read, row);
    },
    async find(id: string) {
      const row = await sql.one(`SELECT * FROM ${tokens} WHERE id = $1`, [id]);
      return row === undefined ? undefined : toAdminToken(read, row);
    },
    list: async () =>
      (await sql.all(`SELECT * FROM ${tokens} ORDER BY name`)).map((row) =>
        toAdminToken(read, row),
      ),
    remove: async (name: string) =>
      (await sql.run(`DELETE FROM ${tokens} WHERE name = $1`, [name])) > 0,
  };
}
