/**
 * The tables whose rows hold a sealed secret (src/store/sealing.ts), for counting and
 * re-sealing them in every adapter: the primary key names the row in the additional data.
 */
import { sealedIn } from './sealing.ts';

export interface SealedTable {
  readonly table: 'clients' | 'temporary_credentials' | 'token_credentials' | 'webhooks';
  readonly key: 'key' | 'token' | 'id';
  readonly context: (key: string) => string;
}

export const sealedTables: readonly SealedTable[] = [
  { table: 'clients', key: 'key', context: sealedIn.client },
  { table: 'temporary_credentials', key: 'token', context: sealedIn.temporaryCredential },
  { table: 'token_credentials', key: 'token', context: sealedIn.tokenCredential },
  { table: 'webhooks', key: 'id', context: sealedIn.webhook },
];

/** Adds one table's counts (key id, or '' in clear) into `into`. */
export function addCounts(
  into: Map<string, number>,
  rows: readonly { readonly keyId: string | null; readonly n: number }[],
): void {
  for (const { keyId, n } of rows) into.set(keyId ?? '', (into.get(keyId ?? '') ?? 0) + n);
}
