/** The audit trail in either SQL store (src/store/types.ts AuditStore), through its runner. */
import { toAuditEvent } from '../audit-rows.ts';
import type { ColumnReader } from '../rows.ts';
import type { AuditStore, NewAuditEvent } from '../types.ts';
import type { Row, SqlRunner } from './runner.ts';

export function sqlAudit(sql: SqlRunner, read: ColumnReader<Row>): AuditStore {
  const table = sql.table('audit_events');
  return {
    async append(event: NewAuditEvent) {
      await sql.run(
        `INSERT INTO ${table} (at, event, actor, owner_id, client_key, address, detail)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [
          event.at,
          event.event,
          event.actor,
          event.ownerId,
          event.clientKey,
          event.address,
          event.detail,
        ],
      );
    },
    // A NULL filter leaves its condition out (the CAST gives PostgreSQL the parameter's type).
    async list(filter) {
      const rows = await sql.all(
        `SELECT * FROM ${table}
         WHERE at >= $1 AND (CAST($2 AS TEXT) IS NULL OR client_key = $2)
           AND (CAST($3 AS TEXT) IS NULL OR owner_id = $3)
         ORDER BY at DESC, id DESC LIMIT $4`,
        [filter.since ?? 0, filter.clientKey ?? null, filter.ownerId ?? null, filter.limit],
      );
      return rows.map((row) => toAuditEvent(read, row));
    },
    purgeBefore: (before: number) => sql.run(`DELETE FROM ${table} WHERE at < $1`, [before]),
  };
}
