/**
 * What both SQL stores do alike for the secrets at rest (SealedSecretStore, src/store/types.ts):
 * verifier digests through the sealer, and the count of secrets per key over the sealed tables
 * (src/store/sealed-tables.ts). Re-sealing stays with each adapter: its transactions and locks
 * are its own.
 */
import { addCounts, sealedTables } from '../sealed-tables.ts';
import type { Sealer } from '../sealing.ts';
import type { SealedSecretStore } from '../types.ts';
import { textOrNull } from './columns.ts';
import type { Row, SqlRunner } from './runner.ts';

export function sqlSealedSecretCounts(
  sql: SqlRunner,
  sealer: Sealer,
  int: (row: Row, column: string) => number,
): Omit<SealedSecretStore, 'reseal'> {
  return {
    verifierDigest: (verifier) => sealer.verifierDigest(verifier),
    verifierMatches: (verifier, stored) => sealer.verifierMatches(verifier, stored),
    async countByKey() {
      const counts = new Map<string, number>();
      for (const { table, keyId } of sealedTables) {
        const rows = await sql.all(
          `SELECT ${keyId} AS key_id, CAST(count(*) AS INTEGER) AS n FROM ${sql.table(table)}
           GROUP BY ${keyId}`,
        );
        addCounts(
          counts,
          rows.map((row) => ({ keyId: textOrNull(row, 'key_id'), n: int(row, 'n') })),
        );
      }
      return counts;
    },
  };
}
