/** Registered clients (RFC 5849 §1.1 client credentials) in SQLite. */
import type { DatabaseSync } from 'node:sqlite';
import type { ClientChanges, ClientStore, NewClient } from '../types.ts';
import { updatableClientColumns } from '../rows.ts';
import { method } from './errors.ts';
import { sealedIn, type Sealer } from '../sealing.ts';
import { sealedRows } from './row.ts';

const updateSql = `UPDATE clients SET ${Object.values(updatableClientColumns)
  .map((column) => `${column} = CASE WHEN :set_${column} THEN :${column} ELSE ${column} END`)
  .join(', ')}, secret_key_id = CASE WHEN :set_secret THEN :secret_key_id ELSE secret_key_id END
  WHERE key = :key RETURNING *`;

function storedValue(value: ClientChanges[keyof ClientChanges]): string | number | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

export function sqliteClients(db: DatabaseSync, now: () => number, sealer: Sealer): ClientStore {
  const fromRow = sealedRows(sealer);
  const insert = db.prepare(
    `INSERT INTO clients (key, secret, secret_key_id, name, description, website, callbacks,
       signature_methods, rsa_public_key, constrained_device, verified, developer_id, disabled,
       session_extension, remember_consent, token_response_identity, scopes, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
  );
  const select = db.prepare('SELECT * FROM clients WHERE key = ?');
  const selectAll = db.prepare('SELECT * FROM clients ORDER BY created_at, key');
  const selectByDeveloper = db.prepare(
    'SELECT * FROM clients WHERE developer_id = ? ORDER BY created_at, key',
  );
  const update = db.prepare(updateSql);
  const remove = db.prepare('DELETE FROM clients WHERE key = ?');

  return {
    create: method((client: NewClient) => {
      const secret = sealer.seal(client.secret, sealedIn.client(client.key));
      const row = insert.get(
        client.key,
        secret.value,
        secret.keyId,
        client.name,
        client.description,
        client.website,
        JSON.stringify(client.callbacks),
        JSON.stringify(client.signatureMethods),
        client.publicKey,
        client.constrainedDevice ? 1 : 0,
        client.verified ? 1 : 0,
        client.developerId,
        client.disabled ? 1 : 0,
        client.sessionExtension === true ? 1 : 0,
        client.rememberConsent ?? 'never',
        client.tokenResponseIdentity === true ? 1 : 0,
        JSON.stringify(client.scopes ?? []),
        client.createdAt ?? now(),
      );
      if (row === undefined) throw new Error('INSERT … RETURNING returned no row.');
      return fromRow.toClient(row);
    }),
    find: method((key: string) => {
      const row = select.get(key);
      return row === undefined ? undefined : fromRow.toClient(row);
    }),
    list: method((filter?: { readonly developerId?: string }) => {
      const rows =
        filter?.developerId === undefined
          ? selectAll.all()
          : selectByDeveloper.all(filter.developerId);
      return rows.map(fromRow.toClient);
    }),
    update: method((key: string, changes: ClientChanges) => {
      const parameters: Record<string, string | number | null> = { key };
      for (const [field, column] of Object.entries(updatableClientColumns)) {
        const value = changes[field as keyof ClientChanges];
        parameters[`set_${column}`] = value === undefined ? 0 : 1;
        parameters[column] = storedValue(value);
      }
      const secret =
        changes.secret === undefined
          ? undefined
          : sealer.seal(changes.secret, sealedIn.client(key));
      parameters.secret = secret?.value ?? null;
      parameters.secret_key_id = secret?.keyId ?? null;
      const row = update.get(parameters);
      return row === undefined ? undefined : fromRow.toClient(row);
    }),
    // Temporary and token credentials go with it: ON DELETE CASCADE.
    remove: method((key: string) => remove.run(key).changes > 0),
  };
}
