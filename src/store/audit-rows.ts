/** Audit rows to events, once for every adapter (src/store/types.ts AuditStore). */
import type { ColumnReader } from './rows.ts';
import type { AuditActor, AuditEvent } from './types.ts';

const actors: readonly string[] = ['owner', 'client', 'admin', 'operator'];

export function toAuditEvent<Row>(read: ColumnReader<Row>, row: Row): AuditEvent {
  const actor = read.text(row, 'actor');
  if (!actors.includes(actor)) throw new TypeError('Unknown audit actor.');
  return {
    id: read.int(row, 'id'),
    at: read.int(row, 'at'),
    event: read.text(row, 'event'),
    actor: actor as AuditActor,
    ownerId: read.textOrNull(row, 'owner_id'),
    clientKey: read.textOrNull(row, 'client_key'),
    address: read.textOrNull(row, 'address'),
    detail: read.text(row, 'detail'),
  };
}
