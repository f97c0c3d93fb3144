/**
 * Webhooks and their delivery queue in PostgreSQL (src/store/types.ts WebhookStore); what both
 * SQL stores write alike is in src/store/sql/webhooks.ts. Every instance claims from the one
 * queue: the due rows are locked with FOR UPDATE SKIP LOCKED (so two instances claiming at
 * once take different rows and neither waits) and leased until `claimed_until`; a row whose
 * lease ran out (its instance died mid-delivery) is due again.
 */
import { randomUUID } from 'node:crypto';
import type { Sealer } from '../sealing.ts';
import type { SqlRunner } from '../sql/runner.ts';
import { sqlWebhooks } from '../sql/webhooks.ts';
import type { DeliveryOutcome, WebhookEvent, WebhookStore } from '../types.ts';
import { toClaimedDelivery } from '../webhook-rows.ts';
import type { Database } from './database.ts';
import { read, spelling, text } from './row.ts';

export function postgresWebhooks(db: Database, sql: SqlRunner, sealer: Sealer): WebhookStore {
  const hooks = db.table('webhooks');
  const deliveries = db.table('webhook_deliveries');
  return {
    ...sqlWebhooks(sql, read, sealer, spelling),
    async enqueue(event: WebhookEvent) {
      const { count } = await db.query(
        `INSERT INTO ${deliveries} (id, webhook_id, event_id, type, body, created_at,
           next_attempt_at)
         SELECT replace(gen_random_uuid()::text, '-', ''), w.id, $1, $2, $3, $4, $4
         FROM ${hooks} w
         WHERE w.disabled_at IS NULL AND ($2 = ANY (w.events) OR '*' = ANY (w.events))`,
        [event.id, event.type, event.body, event.createdAt],
      );
      return count;
    },
    async claim(now: number, leaseMs: number, limit: number) {
      // One claim token per row, made here: only its holder may complete or release it.
      const { rows } = await db.query(
        `WITH due AS (
           SELECT d.id FROM ${deliveries} d JOIN ${hooks} w ON w.id = d.webhook_id
           WHERE d.next_attempt_at <= $1 AND w.disabled_at IS NULL
             AND (d.claimed_until IS NULL OR d.claimed_until <= $1)
           ORDER BY d.next_attempt_at, d.id LIMIT $3
           FOR UPDATE OF d SKIP LOCKED
         )
         UPDATE ${deliveries} d
         SET claim = $4::text || '.' || d.id, claimed_until = $2, attempts = d.attempts + 1
         FROM due, ${hooks} w
         WHERE d.id = due.id AND w.id = d.webhook_id
         RETURNING d.*, w.url, w.secret, w.secret_key_id`,
        [now, now + leaseMs, limit, randomUUID()],
      );
      return rows.map((row) => toClaimedDelivery(read, sealer, row));
    },
    complete: postgresComplete(db),
  };
}

function postgresComplete(db: Database) {
  const hooks = db.table('webhooks');
  const deliveries = db.table('webhook_deliveries');
  return async (id: string, claim: string, outcome: DeliveryOutcome) => {
    if (outcome.kind === 'delivered') {
      const { count } = await db.query(
        `UPDATE ${deliveries} SET delivered_at = $3, last_status = $4, last_error = NULL,
           next_attempt_at = NULL, claim = NULL, claimed_until = NULL
         WHERE id = $1 AND claim = $2`,
        [id, claim, outcome.at, outcome.status],
      );
      return count > 0;
    }
    return db.transaction(async (query) => {
      const { rows } = await query(
        `UPDATE ${deliveries} SET last_status = $3, last_error = $4, next_attempt_at = $5,
           claim = NULL, claimed_until = NULL
         WHERE id = $1 AND claim = $2 RETURNING webhook_id`,
        [id, claim, outcome.status, outcome.error, outcome.nextAttemptAt],
      );
      const hook = rows[0];
      if (hook === undefined) return false;
      if (outcome.disableHookAt !== undefined) {
        await query(`UPDATE ${hooks} SET disabled_at = $2 WHERE id = $1`, [
          text(hook, 'webhook_id'),
          outcome.disableHookAt,
        ]);
      }
      return true;
    });
  };
}
