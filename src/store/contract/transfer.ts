/** The bulk transfer part of the store contract (`latchkey import` / `latchkey export`). */
import type { Client, TokenCredential } from '../records.ts';

/** The rows a transfer batch found under its keys (TransferStore below). */
export interface ExistingRows {
  readonly clients: ReadonlyMap<string, Client>;
  readonly tokens: ReadonlyMap<string, TokenCredential>;
  /**
   * Session extension: the tokens stored under each given session handle hash. A renewal
   * deletes the old token and keeps the hash on its successor, so a hash held by another
   * token means the record's token was renewed away (docs/import.md).
   */
  readonly sessions: ReadonlyMap<string, readonly string[]>;
}

/** What a transfer batch writes: new rows, and whole rows replacing the stored ones. */
export interface TransferWrites {
  readonly createClients: readonly Client[];
  readonly replaceClients: readonly Client[];
  readonly createTokens: readonly TokenCredential[];
  readonly replaceTokens: readonly TokenCredential[];
}

/**
 * Moving credentials in and out in bulk (`latchkey import` / `latchkey export`): whole rows,
 * times included, in batches. Used by the provider's transfer operations only.
 */
export interface TransferStore {
  /**
   * One atomic batch: reads the clients and token credentials stored under the given keys
   * (locking them against other writers), asks `plan` what to write, and writes it, clients
   * before tokens, in one transaction: every row of the batch is written, or none. Creating a
   * row whose key exists fails the batch with StoreConflictError (someone wrote it meanwhile).
   * Resolves with what `plan` returned. `sessions`: session handle hashes whose tokens
   * `plan` is shown (ExistingRows.sessions).
   * Called by: provider/transfer/import.ts (`latchkey import`).
   */
  writeBatch<T>(
    keys: {
      readonly clients: readonly string[];
      readonly tokens: readonly string[];
      readonly sessions?: readonly string[] | undefined;
    },
    plan: (existing: ExistingRows) => { readonly writes: TransferWrites; readonly result: T },
  ): Promise<T>;
  /**
   * Up to `limit` clients in key order, after the key `after` (from the start when undefined).
   * Called by: provider/transfer/export.ts (`latchkey export`).
   */
  clientsAfter(after: string | undefined, limit: number): Promise<Client[]>;
  /**
   * Up to `limit` token credentials in token order, after `after`.
   * Called by: provider/transfer/export.ts (`latchkey export`).
   */
  tokensAfter(after: string | undefined, limit: number): Promise<TokenCredential[]>;
}
