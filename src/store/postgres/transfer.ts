/**
 * Bulk transfer of clients and token credentials in PostgreSQL (`latchkey import` / `export`):
 * a batch is one transaction whose existing rows are locked (FOR UPDATE) before the plan
 * decides, and whose rows are written a statement per kind from one JSON parameter.
 */
import type {
  Client,
  ExistingRows,
  TokenCredential,
  TransferStore,
  TransferWrites,
} from '../types.ts';
import type { Database, Query } from './database.ts';
import type { Sealer } from '../sealing.ts';
import {
  clientColumns,
  sealedClientRow,
  sealedTokenRow,
  tokenColumns,
} from '../sql/sealed-rows.ts';
import { sealedRows, spelling, type Row } from './row.ts';

/** The client columns that hold TEXT[], sent as JSON arrays. */
const lists: ReadonlySet<string> = new Set(['callbacks', 'signature_methods', 'scopes']);

type TransferKeys = Parameters<TransferStore['writeBatch']>[0];
type Mappers = ReturnType<typeof sealedRows>;

/** `ON CONFLICT` on the first column (the key), every other column set from the new row. */
function upsert(columns: readonly string[]): string {
  return `ON CONFLICT (${columns[0]}) DO UPDATE SET ${columns
    .slice(1)
    .map((column) => `${column} = excluded.${column}`)
    .join(', ')}`;
}

/** The INSERTs of a batch: rows arrive as one JSON array; lists become TEXT[]. */
function insertStatements(clients: string, tokens: string) {
  const clientsSql = (replace: boolean) => `
    INSERT INTO ${clients} (${clientColumns.join(', ')})
    SELECT ${clientColumns
      .map((column) =>
        lists.has(column) ? `ARRAY(SELECT json_array_elements_text(r.${column}))` : `r.${column}`,
      )
      .join(', ')}
    FROM json_to_recordset($1::json) AS r (key text, secret text, name text, description text,
      website text, callbacks json, signature_methods json, rsa_public_key text,
      constrained_device boolean, verified boolean, developer_id text, disabled boolean,
      session_extension boolean, created_at bigint, secret_key_id text, remember_consent text,
      token_response_identity boolean, scopes json)
    ${replace ? upsert(clientColumns) : ''}`;
  const tokensSql = (replace: boolean) => `
    INSERT INTO ${tokens} (${tokenColumns.join(', ')})
    SELECT ${tokenColumns.map((column) => `r.${column}`).join(', ')}
    FROM json_to_recordset($1::json) AS r (token text, secret text, client_key text,
      owner_id text, scope text, issued_at bigint, expires_at bigint, last_used_at bigint,
      revoked_at bigint, session_handle_hash text, session_expires_at bigint, secret_key_id text,
      device_hint text)
    ${replace ? upsert(tokenColumns) : ''}`;
  return {
    createClients: clientsSql(false),
    replaceClients: clientsSql(true),
    createTokens: tokensSql(false),
    replaceTokens: tokensSql(true),
  };
}

/** Reads the rows under the batch's keys, locking them until the batch commits. */
async function lockExisting(
  query: Query,
  keys: TransferKeys,
  tables: { readonly clients: string; readonly tokens: string },
  fromRow: Mappers,
): Promise<ExistingRows> {
  const found = {
    clients: new Map<string, Client>(),
    tokens: new Map<string, TokenCredential>(),
    sessions: new Map<string, string[]>(),
  };
  if (keys.clients.length > 0) {
    const { rows } = await query(
      `SELECT * FROM ${tables.clients} WHERE key = ANY($1::text[]) ORDER BY key FOR UPDATE`,
      [keys.clients],
    );
    for (const row of rows) found.clients.set(String(row.key), fromRow.toClient(row));
  }
  if (keys.tokens.length > 0) {
    const { rows } = await query(
      `SELECT * FROM ${tables.tokens} WHERE token = ANY($1::text[]) ORDER BY token FOR UPDATE`,
      [keys.tokens],
    );
    for (const row of rows) found.tokens.set(String(row.token), fromRow.toTokenCredential(row));
  }
  if (keys.sessions !== undefined && keys.sessions.length > 0) {
    // Locked too: a renewal of one of them (DELETE → INSERT) waits for this batch.
    const { rows } = await query(
      `SELECT token, session_handle_hash FROM ${tables.tokens}
       WHERE session_handle_hash = ANY($1::text[]) ORDER BY token FOR UPDATE`,
      [keys.sessions],
    );
    for (const row of rows) {
      const hash = String(row.session_handle_hash);
      found.sessions.set(hash, [...(found.sessions.get(hash) ?? []), String(row.token)]);
    }
  }
  return found;
}

/** Up to `limit` rows in `key` order after `after` (from the start when undefined). */
async function pageAfter(
  db: Database,
  table: string,
  key: string,
  after: string | undefined,
  limit: number,
): Promise<Row[]> {
  const { rows } =
    after === undefined
      ? await db.query(`SELECT * FROM ${table} ORDER BY ${key} LIMIT $1`, [limit])
      : await db.query(`SELECT * FROM ${table} WHERE ${key} > $1 ORDER BY ${key} LIMIT $2`, [
          after,
          limit,
        ]);
  return rows;
}

export function postgresTransfer(db: Database, sealer: Sealer): TransferStore {
  const fromRow = sealedRows(sealer);
  const tables = { clients: db.table('clients'), tokens: db.table('token_credentials') };
  const insert = insertStatements(tables.clients, tables.tokens);

  /** Writes the planned rows, a statement per kind, clients before tokens. */
  async function writePlanned(query: Query, writes: TransferWrites): Promise<void> {
    const clientRow = (client: Client) => sealedClientRow(client, sealer, spelling);
    const tokenRow = (token: TokenCredential) => sealedTokenRow(token, sealer);
    const batches: [string, readonly object[]][] = [
      [insert.createClients, writes.createClients.map(clientRow)],
      [insert.replaceClients, writes.replaceClients.map(clientRow)],
      [insert.createTokens, writes.createTokens.map(tokenRow)],
      [insert.replaceTokens, writes.replaceTokens.map(tokenRow)],
    ];
    for (const [sql, rows] of batches) {
      if (rows.length > 0) await query(sql, [JSON.stringify(rows)]);
    }
  }

  return {
    writeBatch: ((keys, plan) =>
      db.transaction(async (query) => {
        const { writes, result } = plan(await lockExisting(query, keys, tables, fromRow));
        await writePlanned(query, writes);
        return result;
      })) as TransferStore['writeBatch'],
    clientsAfter: async (after, limit) =>
      (await pageAfter(db, tables.clients, 'key', after, limit)).map(fromRow.toClient),
    tokensAfter: async (after, limit) =>
      (await pageAfter(db, tables.tokens, 'token', after, limit)).map(fromRow.toTokenCredential),
  };
}
