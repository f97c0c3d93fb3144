/** The audit trail in PostgreSQL (src/store/types.ts AuditStore). */
import { toAuditEvent } from '../audit-rows.ts';
import type { AuditStore, NewAuditEvent } from '../types.ts';
import type { Database } from './database.ts';
import { bool, int, intOrNull, stringList, text, textOrNull } from './row.ts';

const read = { text, textOrNull, int, intOrNull, bool, stringList };

export function postgresAudit(db: Database): AuditStore {
  const table = db.table('audit_events');
  return {
    async append(event: NewAuditEvent) {
      await db.query(
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
    async list(filter) {
      const { rows } = await db.query(
        `SELECT * FROM ${table}
         WHERE at >= $1 AND ($2::text IS NULL OR client_key = $2)
           AND ($3::text IS NULL OR owner_id = $3)
         ORDER BY at DESC, id DESC LIMIT $4`,
        [filter.since ?? 0, filter.clientKey ?? null, filter.ownerId ?? null, filter.limit],
      );
      return rows.map((row) => toAuditEvent(read, row));
    },
    async purgeBefore(before: number) {
      return (await db.query(`DELETE FROM ${table} WHERE at < $1`, [before])).count;
    },
  };
}
