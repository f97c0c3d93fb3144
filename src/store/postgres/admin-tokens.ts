/** Admin API tokens in PostgreSQL (src/store/types.ts AdminTokenStore): digests only. */
import { toAdminToken } from '../admin-token-rows.ts';
import type { AdminToken, AdminTokenStore } from '../types.ts';
import type { Database } from './database.ts';
import { bool, first, int, intOrNull, stringList, text, textOrNull } from './row.ts';

const read = { text, textOrNull, int, intOrNull, bool, stringList };

export function postgresAdminTokens(db: Database): AdminTokenStore {
  const table = db.table('admin_tokens');
  return {
    async create(token: AdminToken) {
      const { rows } = await db.query(
        `INSERT INTO ${table} (id, name, role, digest, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
        [token.id, token.name, token.role, token.digest, token.createdAt, token.expiresAt],
      );
      return toAdminToken(read, first(rows));
    },
    async find(id: string) {
      const { rows } = await db.query(`SELECT * FROM ${table} WHERE id = $1`, [id]);
      return rows[0] === undefined ? undefined : toAdminToken(read, rows[0]);
    },
    async list() {
      const { rows } = await db.query(`SELECT * FROM ${table} ORDER BY name`);
      return rows.map((row) => toAdminToken(read, row));
    },
    async remove(name: string) {
      return (await db.query(`DELETE FROM ${table} WHERE name = $1`, [name])).count > 0;
    },
  };
}
