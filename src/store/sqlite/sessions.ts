/** Signed-in owners' browser sessions in SQLite. */
import type { DatabaseSync } from 'node:sqlite';
import type { Session, SessionStore } from '../types.ts';
import { method } from './errors.ts';
import { fromRow } from './row.ts';

export function sqliteSessions(db: DatabaseSync): SessionStore {
  const insert = db.prepare(
    'INSERT INTO sessions (id, owner_id, created_at, expires_at) VALUES (?, ?, ?, ?)',
  );
  const select = db.prepare('SELECT * FROM sessions WHERE id = ? AND expires_at > ?');
  const remove = db.prepare('DELETE FROM sessions WHERE id = ?');
  const removeForOwner = db.prepare('DELETE FROM sessions WHERE owner_id = ?');
  const purge = db.prepare('DELETE FROM sessions WHERE expires_at < ?');

  return {
    create: method((session: Session) => {
      insert.run(session.id, session.ownerId, session.createdAt, session.expiresAt);
    }),
    find: method((id: string, now: number) => {
      const row = select.get(id, now);
      return row === undefined ? undefined : fromRow.toSession(row);
    }),
    remove: method((id: string) => remove.run(id).changes > 0),
    removeForOwner: method((ownerId: string) => Number(removeForOwner.run(ownerId).changes)),
    purgeExpired: method((now: number) => Number(purge.run(now).changes)),
  };
}
