/**
 * Bulk transfer of clients and token credentials in SQLite (`latchkey import` / `export`):
 * a batch is one write transaction (BEGIN IMMEDIATE, so its reads and writes see no other
 * writer in between), pages for export follow the primary keys.
 */
import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import type { Client, TokenCredential, TransferStore } from '../types.ts';
import { method } from './errors.ts';
import type { Sealer } from '../sealing.ts';
import {
  clientColumns,
  sealedClientRow,
  sealedTokenRow,
  tokenColumns,
  valuesOf,
} from '../sql/sealed-rows.ts';
import { sealedRows, spelling } from './row.ts';
import type { Transaction } from './transaction.ts';

const CLIENT_COLUMNS = clientColumns.join(', ');
const TOKEN_COLUMNS = tokenColumns.join(', ');

/** Every column except the key, set from the inserted row (SQLite's upsert `excluded`). */
function replaceSet(columns: string): string {
  return columns
    .split(',')
    .map((column) => column.trim())
    .slice(1)
    .map((column) => `${column} = excluded.${column}`)
    .join(', ');
}

function clientValues(client: Client, sealer: Sealer) {
  return valuesOf(clientColumns, sealedClientRow(client, sealer, spelling)) as SQLInputValue[];
}

function tokenValues(token: TokenCredential, sealer: Sealer) {
  return valuesOf(tokenColumns, sealedTokenRow(token, sealer)) as SQLInputValue[];
}

export function sqliteTransfer(
  db: DatabaseSync,
  transaction: Transaction,
  sealer: Sealer,
): TransferStore {
  const fromRow = sealedRows(sealer);
  const clientMarks = clientColumns.map(() => '?').join(', ');
  const tokenMarks = tokenColumns.map(() => '?').join(', ');
  const insertClient = db.prepare(
    `INSERT INTO clients (${CLIENT_COLUMNS}) VALUES (${clientMarks})`,
  );
  const replaceClient = db.prepare(
    `INSERT INTO clients (${CLIENT_COLUMNS}) VALUES (${clientMarks})
     ON CONFLICT (key) DO UPDATE SET ${replaceSet(CLIENT_COLUMNS)}`,
  );
  const insertToken = db.prepare(
    `INSERT INTO token_credentials (${TOKEN_COLUMNS}) VALUES (${tokenMarks})`,
  );
  const replaceToken = db.prepare(
    `INSERT INTO token_credentials (${TOKEN_COLUMNS}) VALUES (${tokenMarks})
     ON CONFLICT (token) DO UPDATE SET ${replaceSet(TOKEN_COLUMNS)}`,
  );
  const selectClient = db.prepare('SELECT * FROM clients WHERE key = ?');
  const selectToken = db.prepare('SELECT * FROM token_credentials WHERE token = ?');
  const selectSession = db.prepare(
    'SELECT token FROM token_credentials WHERE session_handle_hash = ? ORDER BY token',
  );
  const clientsFrom = db.prepare('SELECT * FROM clients ORDER BY key LIMIT ?');
  const clientsAfter = db.prepare('SELECT * FROM clients WHERE key > ? ORDER BY key LIMIT ?');
  const tokensFrom = db.prepare('SELECT * FROM token_credentials ORDER BY token LIMIT ?');
  const tokensAfter = db.prepare(
    'SELECT * FROM token_credentials WHERE token > ? ORDER BY token LIMIT ?',
  );

  let cacheRaised = false;
  return {
    writeBatch: method((keys, plan) => {
      // A bulk import touches pages all over the token table (its keys are random): a page
      // cache of 256 MiB instead of SQLite's 2 MiB keeps them in memory between batches.
      if (!cacheRaised) db.exec('PRAGMA cache_size = -262144');
      cacheRaised = true;
      return transaction(() => {
        const clients = new Map<string, Client>();
        for (const key of keys.clients) {
          const row = selectClient.get(key);
          if (row !== undefined) clients.set(key, fromRow.toClient(row));
        }
        const tokens = new Map<string, TokenCredential>();
        for (const token of keys.tokens) {
          const row = selectToken.get(token);
          if (row !== undefined) tokens.set(token, fromRow.toTokenCredential(row));
        }
        const sessions = new Map<string, string[]>();
        for (const hash of keys.sessions ?? []) {
          const holders = selectSession.all(hash).map((row) => String(row.token));
          if (holders.length > 0) sessions.set(hash, holders);
        }
        const { writes, result } = plan({ clients, tokens, sessions });
        for (const client of writes.createClients)
          insertClient.run(...clientValues(client, sealer));
        for (const client of writes.replaceClients)
          replaceClient.run(...clientValues(client, sealer));
        for (const token of writes.createTokens) insertToken.run(...tokenValues(token, sealer));
        for (const token of writes.replaceTokens) replaceToken.run(...tokenValues(token, sealer));
        return result;
      });
    }) as TransferStore['writeBatch'],
    clientsAfter: method((after: string | undefined, limit: number) =>
      (after === undefined ? clientsFrom.all(limit) : clientsAfter.all(after, limit)).map(
        fromRow.toClient,
      ),
    ),
    tokensAfter: method((after: string | undefined, limit: number) =>
      (after === undefined ? tokensFrom.all(limit) : tokensAfter.all(after, limit)).map(
        fromRow.toTokenCredential,
      ),
    ),
  };
}
