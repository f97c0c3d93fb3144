/**
 * Webhooks and their delivery queue in SQLite (src/store/types.ts WebhookStore). One process
 * serves the file, so a claim is a write transaction: the due rows read and marked together.
 */
import { randomUUID } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import { sealedIn, type Sealer } from '../sealing.ts';
import type { DeliveryOutcome, NewWebhook, WebhookEvent, WebhookStore } from '../types.ts';
import { toClaimedDelivery, toDelivery, toWebhook } from '../webhook-rows.ts';
import { method } from './errors.ts';
import { bool, int, intOrNull, stringList, text, textOrNull } from './row.ts';
import type { Transaction } from './transaction.ts';

const read = { text, textOrNull, int, intOrNull, bool, stringList };

export function sqliteWebhooks(
  db: DatabaseSync,
  transaction: Transaction,
  sealer: Sealer,
): WebhookStore {
  const insert = db.prepare(
    `INSERT INTO webhooks (id, url, events, secret, secret_key_id, created_at, disabled_at)
     VALUES (?, ?, ?, ?, ?, ?, NULL)`,
  );
  const selectAll = db.prepare('SELECT * FROM webhooks ORDER BY created_at, id');
  const remove = db.prepare('DELETE FROM webhooks WHERE id = ?');
  const enable = db.prepare('UPDATE webhooks SET disabled_at = NULL WHERE id = ?');
  const disable = db.prepare(
    `UPDATE webhooks SET disabled_at = :at
     WHERE id = (SELECT webhook_id FROM webhook_deliveries WHERE id = :id)`,
  );
  // One row per enabled hook whose list names the type (or '*'); the id is random.
  const enqueue = db.prepare(
    `INSERT INTO webhook_deliveries (id, webhook_id, event_id, type, body, created_at,
       next_attempt_at)
     SELECT lower(hex(randomblob(16))), w.id, :event, :type, :body, :at, :at FROM webhooks w
     WHERE w.disabled_at IS NULL
       AND EXISTS (SELECT 1 FROM json_each(w.events) e WHERE e.value IN (:type, '*'))`,
  );
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
  const release = db.prepare(
    `UPDATE webhook_deliveries SET claim = NULL, claimed_until = NULL,
       attempts = max(attempts - 1, 0)
     WHERE id = ? AND claim = ?`,
  );
  const list = db.prepare(
    `SELECT * FROM webhook_deliveries WHERE (:hook IS NULL OR webhook_id = :hook)
     ORDER BY created_at DESC, id DESC LIMIT :limit`,
  );
  const purge = db.prepare(
    'DELETE FROM webhook_deliveries WHERE next_attempt_at IS NULL AND created_at < ?',
  );

  return {
    create: method((hook: NewWebhook) => {
      const sealed = sealer.seal(hook.secret, sealedIn.webhook(hook.id));
      insert.run(
        hook.id,
        hook.url,
        JSON.stringify(hook.events),
        sealed.value,
        sealed.keyId,
        hook.createdAt,
      );
      return { ...hook, disabledAt: null };
    }),
    list: method(() => selectAll.all().map((row) => toWebhook(read, sealer, row))),
    remove: method((id: string) => Number(remove.run(id).changes) > 0),
    enable: method((id: string) => Number(enable.run(id).changes) > 0),
    enqueue: method((event: WebhookEvent) =>
      Number(
        enqueue.run({ event: event.id, type: event.type, body: event.body, at: event.createdAt })
          .changes,
      ),
    ),
    claim: method((now: number, leaseMs: number, limit: number) =>
      transaction(() =>
        due.all({ now, limit }).map((row) => {
          const id = text(row, 'id');
          mark.run({ id, claim: randomUUID(), until: now + leaseMs });
          const found = claimed.get(id);
          if (found === undefined) throw new Error('A claimed delivery vanished.');
          return toClaimedDelivery(read, sealer, found);
        }),
      ),
    ),
    complete: method((id: string, claim: string, outcome: DeliveryOutcome) =>
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
    ),
    release: method((id: string, claim: string) => Number(release.run(id, claim).changes) > 0),
    deliveries: method(
      (filter: { readonly webhookId?: string | undefined; readonly limit: number }) =>
        list
          .all({ hook: filter.webhookId ?? null, limit: filter.limit })
          .map((row) => toDelivery(read, row)),
    ),
    purgeFinishedBefore: method((before: number) => Number(purge.run(before).changes)),
  };
}
