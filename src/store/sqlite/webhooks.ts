/**
 * Webhooks and their delivery queue in SQLite (src/store/types.ts WebhookStore); what both SQL
 * stores write alike is in src/store/sql/webhooks.ts. One process serves the file, so a claim
 * is a write transaction: the due rows read and marked together.
 */
import { randomUUID } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import type { Sealer } from '../sealing.ts';
import type { SqlRunner } from '../sql/runner.ts';
import { sqlWebhooks } from '../sql/webhooks.ts';
import type { DeliveryOutcome, WebhookEvent, WebhookStore } from '../types.ts';
import { toClaimedDelivery } from '../webhook-rows.ts';
import { method } from './errors.ts';
import { read, spelling, text } from './row.ts';
import type { Transaction } from './transaction.ts';

export function sqliteWebhooks(
  db: DatabaseSync,
  sql: SqlRunner,
  transaction: Transaction,
  sealer: Sealer,
): WebhookStore {
  // One row per enabled hook whose list names the type (or '*'); the id is random.
  const enqueue = db.prepare(
    `INSERT INTO webhook_deliveries (id, webhook_id, event_id, type, body, created_at,
       next_attempt_at)
     SELECT lower(hex(randomblob(16))), w.id, :event, :type, :body, :at, :at FROM webhooks w
     WHERE w.disabled_at IS NULL
       AND EXISTS (SELECT 1 FROM json_each(w.events) e WHERE e.value IN (:type, '*'))`,
  );
  return {
    ...sqlWebhooks(sql, read, sealer, spelling),
    enqueue: method((event: WebhookEvent) =>
      Number(
        enqueue.run({ event: event.id, type: event.type, body: event.body, at: event.createdAt })
          .changes,
      ),
    ),
    claim: sqliteClaim(db, transaction, sealer),
    complete: sqliteComplete(db, transaction),
  };
}

function sqliteClaim(db: DatabaseSync, transaction: Transaction, sealer: Sealer) {
  const due = db.prepare(
    `SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
     WHERE d.next_attempt_at <= :now AND w.disabled_at IS NULL
       AND (d.claimed_until IS NULL OR d.claimed_until <= :now)
     ORDER BY d.next_attempt_at, d.id LIMIT :limit`,
  );
  const mark = db.prepare(
    `UPDATE webhook_deliveries SET claim = :claim, claimed_until = :until, attempts = attempts + 1
     WHERE id = :id`,
  );
  const claimed = db.prepare(
    `SELECT d.*, w.url, w.secret, w.secret_key_id FROM webhook_deliveries d
     JOIN webhooks w ON w.id = d.webhook_id WHERE d.id = ?`,
  );
  return method((now: number, leaseMs: number, limit: number) =>
    transaction(() =>
      due.all({ now, limit }).map((row) => {
        const id = text(row, 'id');
        mark.run({ id, claim: randomUUID(), until: now + leaseMs });
        const found = claimed.get(id);
        if (found === undefined) throw new Error('A claimed delivery vanished.');
        return toClaimedDelivery(read, sealer, found);
      }),
    ),
  );
}

function sqliteComplete(db: DatabaseSync, transaction: Transaction) {
  const delivered = db.prepare(
    `UPDATE webhook_deliveries SET delivered_at = :at, last_status = :status, last_error = NULL,
       next_attempt_at = NULL, claim = NULL, claimed_until = NULL
     WHERE id = :id AND claim = :claim`,
  );
  const failed = db.prepare(
    `UPDATE webhook_deliveries SET last_status = :status, last_error = :error,
       next_attempt_at = :next, claim = NULL, claimed_until = NULL
     WHERE id = :id AND claim = :claim`,
  );
  const disable = db.prepare(
    `UPDATE webhooks SET disabled_at = :at
     WHERE id = (SELECT webhook_id FROM webhook_deliveries WHERE id = :id)`,
  );
  return method((id: string, claim: string, outcome: DeliveryOutcome) =>
    transaction(() => {
      if (outcome.kind === 'delivered') {
        return (
          Number(delivered.run({ id, claim, at: outcome.at, status: outcome.status }).changes) > 0
        );
      }
      const done =
        Number(
          failed.run({
            id,
            claim,
            status: outcome.status,
            error: outcome.error,
            next: outcome.nextAttemptAt,
          }).changes,
        ) > 0;
      if (done && outcome.disableHookAt !== undefined) {
        disable.run({ id, at: outcome.disableHookAt });
      }
      return done;
    }),
  );
}
