/** Registered clients (RFC 5849 §1.1 client credentials) in PostgreSQL. */
import type { ClientChanges, ClientStore, NewClient } from '../types.ts';
import type { Database } from './database.ts';
import { updatableClientColumns } from '../rows.ts';
import { sealedIn, type Sealer } from '../sealing.ts';
import { first, sealedRows } from './row.ts';

export function postgresClients(db: Database, now: () => number, sealer: Sealer): ClientStore {
  const clients = db.table('clients');
  const fromRow = sealedRows(sealer);

  return {
    async create(client: NewClient) {
      const secret = sealer.seal(client.secret, sealedIn.client(client.key));
      const { rows } = await db.query(
        `INSERT INTO ${clients} (key, secret, name, description, website, callbacks,
           signature_methods, rsa_public_key, constrained_device, verified, developer_id, disabled,
           session_extension, created_at, secret_key_id, remember_consent, token_response_identity,
           scopes)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
         RETURNING *`,
        [
          client.key,
          secret.value,
          client.name,
          client.description,
          client.website,
          client.callbacks,
          client.signatureMethods,
          client.publicKey,
          client.constrainedDevice,
          client.verified,
          client.developerId,
          client.disabled,
          client.sessionExtension === true,
          client.createdAt ?? now(),
          secret.keyId,
          client.rememberConsent ?? 'never',
          client.tokenResponseIdentity === true,
          client.scopes ?? [],
        ],
      );
      return fromRow.toClient(first(rows));
    },
    async find(key: string) {
      const { rows } = await db.query(`SELECT * FROM ${clients} WHERE key = $1`, [key]);
      return rows[0] === undefined ? undefined : fromRow.toClient(rows[0]);
    },
    async list(filter?: { readonly developerId?: string }) {
      const { rows } =
        filter?.developerId === undefined
          ? await db.query(`SELECT * FROM ${clients} ORDER BY created_at, key`)
          : await db.query(
              `SELECT * FROM ${clients} WHERE developer_id = $1 ORDER BY created_at, key`,
              [filter.developerId],
            );
      return rows.map(fromRow.toClient);
    },
    async update(key: string, changes: ClientChanges) {
      const values: unknown[] = [key];
      const set: string[] = [];
      for (const [field, column] of Object.entries(updatableClientColumns)) {
        const value = changes[field as keyof ClientChanges];
        if (value === undefined) continue;
        if (field === 'secret') {
          const sealed = sealer.seal(String(value), sealedIn.client(key));
          values.push(sealed.value, sealed.keyId);
          set.push(`secret = $${values.length - 1}`, `secret_key_id = $${values.length}`);
          continue;
        }
        values.push(value);
        set.push(`${column} = $${values.length}`);
      }
      // Nothing to change: still answer with the client, or undefined when there is none.
      const { rows } =
        set.length === 0
          ? await db.query(`SELECT * FROM ${clients} WHERE key = $1`, values)
          : await db.query(
              `UPDATE ${clients} SET ${set.join(', ')} WHERE key = $1 RETURNING *`,
              values,
            );
      return rows[0] === undefined ? undefined : fromRow.toClient(rows[0]);
    },
    // Temporary and token credentials go with it: ON DELETE CASCADE.
    async remove(key: string) {
      return (await db.query(`DELETE FROM ${clients} WHERE key = $1`, [key])).count > 0;
    },
  };
}
