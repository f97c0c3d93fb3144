/**
 * A client's previous credentials (PreviousCredentialStore, src/store/types.ts) in either SQL
 * store, through its runner: one row per client and kind, the value sealed as client secrets are.
 */
import type { CredentialKind, PreviousCredential, PreviousCredentialStore } from '../types.ts';
import { sealedIn, type Sealer } from '../sealing.ts';
import { text, textOrNull } from './columns.ts';
import type { Row, SqlRunner } from './runner.ts';

const kinds: readonly string[] = ['secret', 'public-key'];

/** The row's primary key: one previous credential per client and kind. */
const idOf = (clientKey: string, kind: CredentialKind) => `${kind}/${clientKey}`;

export function sqlPreviousCredentials(
  sql: SqlRunner,
  sealer: Sealer,
  int: (row: Row, column: string) => number,
): PreviousCredentialStore {
  const table = sql.table('client_previous_credentials');
  const toPrevious = (row: Row): PreviousCredential => {
    const id = text(row, 'id');
    const kind = text(row, 'kind');
    if (!kinds.includes(kind)) throw new TypeError('Unknown credential kind.');
    return {
      clientKey: text(row, 'client_key'),
      kind: kind as CredentialKind,
      value: sealer.open(
        { value: text(row, 'value'), keyId: textOrNull(row, 'value_key_id') },
        sealedIn.previousCredential(id),
      ),
      replacedAt: int(row, 'replaced_at'),
      until: int(row, 'until'),
      endedAt: row.ended_at === null ? null : int(row, 'ended_at'),
      lastUsedAt: row.last_used_at === null ? null : int(row, 'last_used_at'),
    };
  };

  return {
    async keep(previous) {
      const id = idOf(previous.clientKey, previous.kind);
      const sealed = sealer.seal(previous.value, sealedIn.previousCredential(id));
      await sql.run(
        `INSERT INTO ${table}
           (id, client_key, kind, value, value_key_id, replaced_at, until, ended_at, last_used_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (id) DO UPDATE SET value = excluded.value,
           value_key_id = excluded.value_key_id, replaced_at = excluded.replaced_at,
           until = excluded.until, ended_at = excluded.ended_at,
           last_used_at = excluded.last_used_at`,
        [
          id,
          previous.clientKey,
          previous.kind,
          sealed.value,
          sealed.keyId,
          previous.replacedAt,
          previous.until,
          previous.endedAt,
          previous.lastUsedAt,
        ],
      );
    },
    async touch(uses) {
      if (uses.length === 0) return;
      await sql.runAll(
        uses.map((use) => [
          `UPDATE ${table} SET last_used_at = $2
           WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2)`,
          [idOf(use.clientKey, use.kind), use.at],
        ]),
      );
    },
    find: async (clientKey) =>
      (
        await sql.all(`SELECT * FROM ${table} WHERE client_key = $1 ORDER BY kind`, [clientKey])
      ).map(toPrevious),
    endOverlaps: async (now) =>
      (
        await sql.all(
          `UPDATE ${table} SET ended_at = $1 WHERE until <= $1 AND ended_at IS NULL RETURNING *`,
          [now],
        )
      ).map(toPrevious),
    forget: (before) => sql.run(`DELETE FROM ${table} WHERE until <= $1`, [before]),
    endNow: (clientKey, now) =>
      sql.run(`UPDATE ${table} SET until = $2 WHERE client_key = $1 AND until > $2`, [
        clientKey,
        now,
      ]),
  };
}
