/**
 * Bulk transfer of clients and token credentials in PostgreSQL (`latchkey import` / `export`):
 * a batch is one transaction whose existing rows are locked (FOR UPDATE) before the plan
 * decides, and whose rows are written a statement per kind from one JSON parameter.
 */
import type { Client, TokenCredential, TransferStore } from '../types.ts';
import type { Database, Query } from './database.ts';
import type { Sealer } from '../sealing.ts';
import {
  clientColumns,
  sealedClientRow,
  sealedTokenRow,
  tokenColumns,
} from '../sql/sealed-rows.ts';
import { sealedRows, spelling } from './row.ts';

const CLIENT_COLUMNS = clientColumns;
const TOKEN_COLUMNS = tokenColumns;
/** PostgreSQL has BOOLEAN and TEXT[]: the values as they are. */

/** The client columns that hold TEXT[], sent as JSON arrays. */
const lists: ReadonlySet<string> = new Set(['callbacks', 'signature_methods', 'scopes']);

export function postgresTransfer(db: Database, sealer: Sealer): TransferStore {
  const fromRow = sealedRows(sealer);
  const clientRow = (client: Client) => sealedClientRow(client, sealer, spelling);
  const tokenRow = (token: TokenCredential) => sealedTokenRow(token, sealer);
  const clients = db.table('clients');
  const tokens = db.table('token_credentials');
  const upsert = (columns: readonly string[]) =>
    `ON CONFLICT (${columns[0]}) DO UPDATE SET ${columns
      .slice(1)
      .map((column) => `${column} = excluded.${column}`)
      .join(', ')}`;

  // Rows arrive as one JSON array; lists become TEXT[] with json_array_elements_text.
  const clientsSql = (replace: boolean) => `
    INSERT INTO ${clients} (${CLIENT_COLUMNS.join(', ')})
    SELECT ${CLIENT_COLUMNS.map((column) =>
      lists.has(column) ? `ARRAY(SELECT json_array_elements_text(r.${column}))` : `r.${column}`,
    ).join(', ')}
    FROM json_to_recordset($1::json) AS r (key text, secret text, name text, description text,
      website text, callbacks json, signature_methods json, rsa_public_key text,
      constrained_device boolean, verified boolean, developer_id text, disabled boolean,
      session_extension boolean, created_at bigint, secret_key_id text, remember_consent text,
      token_response_identity boolean, scopes json)
    ${replace ? upsert(CLIENT_COLUMNS) : ''}`;
  const tokensSql = (replace: boolean) => `
    INSERT INTO ${tokens} (${TOKEN_COLUMNS.join(', ')})
    SELECT ${TOKEN_COLUMNS.map((column) => `r.${column}`).join(', ')}
    FROM json_to_recordset($1::json) AS r (token text, secret text, client_key text,
      owner_id text, scope text, issued_at bigint, expires_at bigint, last_used_at bigint,
      revoked_at bigint, session_handle_hash text, session_expires_at bigint, secret_key_id text)
    ${replace ? upsert(TOKEN_COLUMNS) : ''}`;

  async function write(query: Query, sql: string, rows: readonly object[]): Promise<void> {
    if (rows.length > 0) await query(sql, [JSON.stringify(rows)]);
  }

  return {
    writeBatch: ((keys, plan) =>
      db.transaction(async (query) => {
        const found = {
          clients: new Map<string, Client>(),
          tokens: new Map<string, TokenCredential>(),
          sessions: new Map<string, string[]>(),
        };
        if (keys.clients.length > 0) {
          const { rows } = await query(
            `SELECT * FROM ${clients} WHERE key = ANY($1::text[]) ORDER BY key FOR UPDATE`,
            [keys.clients],
          );
          for (const row of rows) found.clients.set(String(row.key), fromRow.toClient(row));
        }
        if (keys.tokens.length > 0) {
          const { rows } = await query(
            `SELECT * FROM ${tokens} WHERE token = ANY($1::text[]) ORDER BY token FOR UPDATE`,
            [keys.tokens],
          );
          for (const row of rows) {
            found.tokens.set(String(row.token), fromRow.toTokenCredential(row));
          }
        }
        if (keys.sessions !== undefined && keys.sessions.length > 0) {
          // Locked too: a renewal of one of them (DELETE → INSERT) waits for this batch.
          const { rows } = await query(
            `SELECT token, session_handle_hash FROM ${tokens}
             WHERE session_handle_hash = ANY($1::text[]) ORDER BY token FOR UPDATE`,
            [keys.sessions],
          );
          for (const row of rows) {
            const hash = String(row.session_handle_hash);
            found.sessions.set(hash, [...(found.sessions.get(hash) ?? []), String(row.token)]);
          }
        }
        const { writes, result } = plan(found);
        await write(query, clientsSql(false), writes.createClients.map(clientRow));
        await write(query, clientsSql(true), writes.replaceClients.map(clientRow));
        await write(query, tokensSql(false), writes.createTokens.map(tokenRow));
        await write(query, tokensSql(true), writes.replaceTokens.map(tokenRow));
        return result;
      })) as TransferStore['writeBatch'],
    async clientsAfter(after, limit) {
      const { rows } =
        after === undefined
          ? await db.query(`SELECT * FROM ${clients} ORDER BY key LIMIT $1`, [limit])
          : await db.query(`SELECT * FROM ${clients} WHERE key > $1 ORDER BY key LIMIT $2`, [
              after,
              limit,
            ]);
      return rows.map(fromRow.toClient);
    },
    async tokensAfter(after, limit) {
      const { rows } =
        after === undefined
          ? await db.query(`SELECT * FROM ${tokens} ORDER BY token LIMIT $1`, [limit])
          : await db.query(`SELECT * FROM ${tokens} WHERE token > $1 ORDER BY token LIMIT $2`, [
              after,
              limit,
            ]);
      return rows.map(fromRow.toTokenCredential);
    },
  };
}
