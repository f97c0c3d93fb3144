/** Resource owner accounts in SQLite. Only the KDF hash of a password is ever stored. */
import type { DatabaseSync } from 'node:sqlite';
import type { Owner, OwnerStore } from '../types.ts';
import { method } from './errors.ts';
import { fromRow } from './row.ts';

export function sqliteOwners(db: DatabaseSync, now: () => number): OwnerStore {
  const insert = db.prepare(
    'INSERT INTO owners (id, username, password_hash, created_at) VALUES (?, ?, ?, ?) RETURNING *',
  );
  const selectById = db.prepare('SELECT * FROM owners WHERE id = ?');
  const selectByUsername = db.prepare('SELECT * FROM owners WHERE username = ?');
  const selectAll = db.prepare('SELECT * FROM owners ORDER BY username');
  const updatePassword = db.prepare('UPDATE owners SET password_hash = ? WHERE id = ?');
  const remove = db.prepare('DELETE FROM owners WHERE id = ?');

  return {
    create: method((owner: Omit<Owner, 'createdAt'> & { readonly createdAt?: number }) => {
      const row = insert.get(
        owner.id,
        owner.username,
        owner.passwordHash,
        owner.createdAt ?? now(),
      );
      if (row === undefined) throw new Error('INSERT … RETURNING returned no row.');
      return fromRow.toOwner(row);
    }),
    findById: method((id: string) => {
      const row = selectById.get(id);
      return row === undefined ? undefined : fromRow.toOwner(row);
    }),
    findByUsername: method((username: string) => {
      const row = selectByUsername.get(username);
      return row === undefined ? undefined : fromRow.toOwner(row);
    }),
    list: method(() => selectAll.all().map(fromRow.toOwner)),
    setPasswordHash: method(
      (id: string, passwordHash: string) => updatePassword.run(passwordHash, id).changes > 0,
    ),
    // Credentials issued for the owner and its sessions go with it: ON DELETE CASCADE.
    remove: method((id: string) => remove.run(id).changes > 0),
  };
}
