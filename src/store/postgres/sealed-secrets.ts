/**
 * Counting and re-sealing the secrets at rest in PostgreSQL (SealedSecretStore,
 * src/store/types.ts). Re-sealing walks each table in primary-key order, a batch per
 * transaction; each row is rewritten only if its stored value is still the one read (a
 * concurrent change wins).
 */
import { sealedTables } from '../sealed-tables.ts';
import { sqlSealedSecretCounts } from '../sql/sealed-secrets.ts';
import { postgresRunner } from './runner.ts';
import type { Sealer } from '../sealing.ts';
import type { SealedSecretStore } from '../types.ts';
import type { Database } from './database.ts';
import { int, text, textOrNull } from './row.ts';

export function postgresSealedSecrets(db: Database, sealer: Sealer): SealedSecretStore {
  return {
    ...sqlSealedSecretCounts(postgresRunner(db), sealer, int),
    async reseal(options?: { readonly batchSize?: number }) {
      const current = sealer.currentKeyId();
      if (current === null) return 0;
      const batchSize = options?.batchSize ?? 1000;
      let resealed = 0;
      for (const { table, key, value, keyId, context } of sealedTables) {
        const name = db.table(table);
        let after: string | undefined = '';
        while (after !== undefined) {
          const from: string = after;
          const page = await db.transaction(async (query) => {
            const { rows } = await query(
              `SELECT ${key} AS k, ${value} AS secret, ${keyId} AS secret_key_id FROM ${name}
               WHERE ${key} > $1 AND ${keyId} IS DISTINCT FROM $2
               ORDER BY ${key} LIMIT $3 FOR UPDATE`,
              [from, current, batchSize],
            );
            let last: string = from;
            let changed = 0;
            for (const row of rows) {
              const id = text(row, 'k');
              last = id;
              const stored = {
                value: text(row, 'secret'),
                keyId: textOrNull(row, 'secret_key_id'),
              };
              const sealed = sealer.seal(sealer.open(stored, context(id)), context(id));
              const result = await query(
                `UPDATE ${name} SET ${value} = $1, ${keyId} = $2 WHERE ${key} = $3`,
                [sealed.value, sealed.keyId, id],
              );
              changed += result.count;
            }
            return { changed, next: rows.length < batchSize ? undefined : last };
          });
          resealed += page.changed;
          after = page.next;
        }
      }
      return resealed;
    },
  };
}
