/**
 * The webhook store's methods both SQL stores write alike, through their runner (runner.ts):
 * the hooks themselves, the delivery list, a release and the purge. Queueing and claiming
 * deliveries, and completing a claim, are each dialect's own (sqlite/webhooks.ts,
 * postgres/webhooks.ts): how a claim is taken safely differs with who may claim at once.
 */
import type { ColumnReader } from '../rows.ts';
import { sealedIn, type Sealer } from '../sealing.ts';
import type { NewWebhook, WebhookChanges, WebhookStore } from '../types.ts';
import { toDelivery, toWebhook } from '../webhook-rows.ts';
import type { Row, SqlRunner } from './runner.ts';
import type { Spelling } from './sealed-rows.ts';

export type SharedWebhookMethods = Omit<WebhookStore, 'enqueue' | 'claim' | 'complete'>;

export function sqlWebhooks(
  sql: SqlRunner,
  read: ColumnReader<Row>,
  sealer: Sealer,
  spelling: Spelling,
): SharedWebhookMethods {
  const hooks = sql.table('webhooks');
  const deliveries = sql.table('webhook_deliveries');
  return {
    async create(hook: NewWebhook) {
      const sealed = sealer.seal(hook.secret, sealedIn.webhook(hook.id));
      await sql.run(
        `INSERT INTO ${hooks} (id, url, events, secret, secret_key_id, created_at, disabled_at)
         VALUES ($1, $2, $3, $4, $5, $6, NULL)`,
        [hook.id, hook.url, spelling.list(hook.events), sealed.value, sealed.keyId, hook.createdAt],
      );
      return { ...hook, disabledAt: null };
    },
    list: async () =>
      (await sql.all(`SELECT * FROM ${hooks} ORDER BY created_at, id`)).map((row) =>
        toWebhook(read, sealer, row),
      ),
    remove: async (id: string) => (await sql.run(`DELETE FROM ${hooks} WHERE id = $1`, [id])) > 0,
    enable: async (id: string) =>
      (await sql.run(`UPDATE ${hooks} SET disabled_at = NULL WHERE id = $1`, [id])) > 0,
    async update(id: string, changes: WebhookChanges) {
      const sets: string[] = [];
      const values: unknown[] = [id];
      if (changes.events !== undefined) {
        values.push(spelling.list(changes.events));
        sets.push(`events = $${values.length}`);
      }
      if (changes.disabledAt !== undefined) {
        values.push(changes.disabledAt);
        sets.push(`disabled_at = $${values.length}`);
      }
      if (sets.length > 0) {
        await sql.run(`UPDATE ${hooks} SET ${sets.join(', ')} WHERE id = $1`, values);
      }
      const row = await sql.one(`SELECT * FROM ${hooks} WHERE id = $1`, [id]);
      return row === undefined ? undefined : toWebhook(read, sealer, row);
    },
    // Only the claim's holder may give it back; the attempt it counted is uncounted.
    release: async (id: string, claim: string) =>
      (await sql.run(
        `UPDATE ${deliveries} SET claim = NULL, claimed_until = NULL,
           attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END
         WHERE id = $1 AND claim = $2`,
        [id, claim],
      )) > 0,
    // `before` is a keyset cursor: the rows after it in (created_at, id) descending order.
    deliveries: async (filter) =>
      (
        await sql.all(
          `SELECT * FROM ${deliveries} WHERE (CAST($1 AS TEXT) IS NULL OR webhook_id = $1)
             AND (CAST($3 AS TEXT) IS NULL OR created_at < $4
                  OR (created_at = $4 AND id < $3))
           ORDER BY created_at DESC, id DESC LIMIT $2`,
          [
            filter.webhookId ?? null,
            filter.limit,
            filter.before?.id ?? null,
            filter.before?.createdAt ?? null,
          ],
        )
      ).map((row) => toDelivery(read, row)),
    purgeFinishedBefore: (before: number) =>
      sql.run(`DELETE FROM ${deliveries} WHERE next_attempt_at IS NULL AND created_at < $1`, [
        before,
      ]),
  };
}
