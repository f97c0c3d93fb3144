/** Resource owners in SQLite. Only the KDF hash of a local owner's password is ever stored. */
import type { DatabaseSync } from 'node:sqlite';
import type { NewOwner, OwnerIdentity, OwnerStore } from '../types.ts';
import { method } from './errors.ts';
import { fromRow } from './row.ts';

export function sqliteOwners(db: DatabaseSync, now: () => number): OwnerStore {
  const insert = db.prepare(
    `INSERT INTO owners (id, source, subject, issuer, name, username, password_hash, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
  );
  const selectById = db.prepare('SELECT * FROM owners WHERE id = ?');
  const selectByUsername = db.prepare('SELECT * FROM owners WHERE username = ?');
  const selectByIdentity = db.prepare(
    `SELECT * FROM owners WHERE source = ? AND coalesce(issuer, '') = ? AND subject = ?`,
  );
  const selectAll = db.prepare('SELECT * FROM owners ORDER BY name, id');
  const updatePassword = db.prepare('UPDATE owners SET password_hash = ? WHERE id = ?');
  const updateName = db.prepare('UPDATE owners SET name = ? WHERE id = ?');
  const remove = db.prepare('DELETE FROM owners WHERE id = ?');

  return {
    create: method((owner: NewOwner) => {
      const row = insert.get(
        owner.id,
        owner.source,
        owner.subject,
        owner.issuer,
        owner.name,
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
    findByIdentity: method((identity: OwnerIdentity) => {
      const row = selectByIdentity.get(identity.source, identity.issuer ?? '', identity.subject);
      return row === undefined ? undefined : fromRow.toOwner(row);
    }),
    list: method(() => selectAll.all().map(fromRow.toOwner)),
    setPasswordHash: method(
      (id: string, passwordHash: string) => updatePassword.run(passwordHash, id).changes > 0,
    ),
    rename: method((id: string, name: string) => updateName.run(name, id).changes > 0),
    // Credentials issued for the owner and its sessions go with it: ON DELETE CASCADE.
    remove: method((id: string) => remove.run(id).changes > 0),
  };
}
