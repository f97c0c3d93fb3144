/**
 * Counting and re-sealing the secrets at rest in SQLite (SealedSecretStore, src/store/types.ts).
 * Re-sealing walks each table in primary-key order, a batch per write transaction; each row is
 * rewritten only if its stored value is still the one read (a concurrent change wins).
 */
import type { DatabaseSync } from 'node:sqlite';
import { sealedTables } from '../sealed-tables.ts';
import { sqlSealedSecretCounts } from '../sql/sealed-secrets.ts';
import type { SqlRunner } from '../sql/runner.ts';
import type { Sealer } from '../sealing.ts';
import type { SealedSecretStore } from '../types.ts';
import { method } from './errors.ts';
import { int, text, textOrNull } from './row.ts';
import type { Transaction } from './transaction.ts';

export function sqliteSealedSecrets(
  db: DatabaseSync,
  sql: SqlRunner,
  transaction: Transaction,
  sealer: Sealer,
): SealedSecretStore {
  const tables = sealedTables.map((table) => ({
    ...table,
    page: db.prepare(
      `SELECT ${table.key} AS k, ${table.value} AS secret, ${table.keyId} AS secret_key_id
       FROM ${table.table} WHERE ${table.key} > ? ORDER BY ${table.key} LIMIT ?`,
    ),
    update: db.prepare(
      `UPDATE ${table.table} SET ${table.value} = ?, ${table.keyId} = ?
       WHERE ${table.key} = ? AND ${table.value} = ? AND ${table.keyId} IS ?`,
    ),
  }));

  /** Re-seals one page after `after`; `next` is where the following page starts, if any. */
  const resealPage = method((table: (typeof tables)[number], after: string, batchSize: number) =>
    transaction(() => {
      const current = sealer.currentKeyId();
      const rows = table.page.all(after, batchSize);
      let resealed = 0;
      let last = after;
      for (const row of rows) {
        const key = text(row, 'k');
        last = key;
        const stored = { value: text(row, 'secret'), keyId: textOrNull(row, 'secret_key_id') };
        if (stored.keyId === current) continue;
        const context = table.context(key);
        const sealed = sealer.seal(sealer.open(stored, context), context);
        const { changes } = table.update.run(
          sealed.value,
          sealed.keyId,
          key,
          stored.value,
          stored.keyId,
        );
        resealed += Number(changes);
      }
      return { resealed, next: rows.length < batchSize ? undefined : last };
    }),
  );

  return {
    ...sqlSealedSecretCounts(sql, sealer, int),
    // One batch a turn of the event loop, so requests are served between batches.
    async reseal(options?: { readonly batchSize?: number }) {
      if (sealer.currentKeyId() === null) return 0;
      const batchSize = options?.batchSize ?? 1000;
      let resealed = 0;
      for (const table of tables) {
        let after: string | undefined = '';
        while (after !== undefined) {
          const page = await resealPage(table, after, batchSize);
          resealed += page.resealed;
          after = page.next;
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
      return resealed;
    },
  };
}
