/** The audit trail in SQLite (src/store/types.ts AuditStore). */
import type { DatabaseSync } from 'node:sqlite';
import { toAuditEvent } from '../audit-rows.ts';
import type { AuditStore, NewAuditEvent } from '../types.ts';
import { method } from './errors.ts';
import { bool, int, intOrNull, stringList, text, textOrNull } from './row.ts';

const read = { text, textOrNull, int, intOrNull, bool, stringList };

export function sqliteAudit(db: DatabaseSync): AuditStore {
  const insert = db.prepare(
    `INSERT INTO audit_events (at, event, actor, owner_id, client_key, address, detail)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const select = db.prepare(
    `SELECT * FROM audit_events
     WHERE at >= :since AND (:client IS NULL OR client_key = :client)
       AND (:owner IS NULL OR owner_id = :owner)
     ORDER BY at DESC, id DESC LIMIT :limit`,
  );
  const purge = db.prepare('DELETE FROM audit_events WHERE at < ?');
  return {
    append: method((event: NewAuditEvent) => {
      insert.run(
        event.at,
        event.event,
        event.actor,
        event.ownerId,
        event.clientKey,
        event.address,
        event.detail,
      );
    }),
    list: method((filter: Parameters<AuditStore['list']>[0]) =>
      select
        .all({
          since: filter.since ?? 0,
          client: filter.clientKey ?? null,
          owner: filter.ownerId ?? null,
          limit: filter.limit,
        })
        .map((row) => toAuditEvent(read, row)),
    ),
    purgeBefore: method((before: number) => Number(purge.run(before).changes)),
  };
}
