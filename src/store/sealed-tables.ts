/**
 * The tables whose rows hold a sealed secret (src/store/sealing.ts), for counting and
 * re-sealing them in every adapter: the primary key names the row in the additional data.
 */
import { sealedIn } from './sealing.ts';

export interface SealedTable {
  readonly table:
    | 'clients'
    | 'temporary_credentials'
    | 'token_credentials'
    | 'webhooks'
    | 'client_previous_credentials';
  readonly key: 'key' | 'token' | 'id';
  /** The sealed column and the column naming its key. */
  readonly value: 'secret' | 'value';
  readonly keyId: 'secret_key_id' | 'value_key_id';
  readonly context: (key: string) => string;
}

const secret = { value: 'secret', keyId: 'secret_key_id' } as const;

export const sealedTables: readonly SealedTable[] = [
  { table: 'clients', key: 'key', ...secret, context: sealedIn.client },
  {
    table: 'temporary_credentials',
    key: 'token',
    ...secret,
    context: sealedIn.temporaryCredential,
  },
  { table: 'token_credentials', key: 'token', ...secret, context: sealedIn.tokenCredential },
  { table: 'webhooks', key: 'id', ...secret, context: sealedIn.webhook },
  {
    table: 'client_previous_credentials',
    key: 'id',
    value: 'value',
    keyId: 'value_key_id',
    context: sealedIn.previousCredential,
  },
];

/** Adds one table's counts (key id, or '' in clear) into `into`. */
export function addCounts(
  into: Map<string, number>,
  rows: readonly { readonly keyId: string | null; readonly n: number }[],
): void {
  for (const { keyId, n } of rows) into.set(keyId ?? '', (into.get(keyId ?? '') ?? 0) + n);
}
