/** Admin API tokens in SQLite (src/store/types.ts AdminTokenStore): digests only. */
import type { DatabaseSync } from 'node:sqlite';
import { toAdminToken } from '../admin-token-rows.ts';
import type { AdminToken, AdminTokenStore } from '../types.ts';
import { method } from './errors.ts';
import { bool, int, intOrNull, stringList, text, textOrNull } from './row.ts';

const read = { text, textOrNull, int, intOrNull, bool, stringList };

export function sqliteAdminTokens(db: DatabaseSync): AdminTokenStore {
  const insert = db.prepare(
    `INSERT INTO admin_tokens (id, name, role, digest, created_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?) RETURNING *`,
  );
  const selectById = db.prepare('SELECT * FROM admin_tokens WHERE id = ?');
  const selectAll = db.prepare('SELECT * FROM admin_tokens ORDER BY name');
  const remove = db.prepare('DELETE FROM admin_tokens WHERE name = ?');
  return {
    create: method((token: AdminToken) => {
      const row = insert.get(
        token.id,
        token.name,
        token.role,
        token.digest,
        token.createdAt,
        token.expiresAt,
      );
      if (row === undefined) throw new Error('INSERT … RETURNING returned no row.');
      return toAdminToken(read, row);
    }),
    find: method((id: string) => {
      const row = selectById.get(id);
      return row === undefined ? undefined : toAdminToken(read, row);
    }),
    list: method(() => selectAll.all().map((row) => toAdminToken(read, row))),
    remove: method((name: string) => remove.run(name).changes > 0),
  };
}
