/** Webhook and delivery rows to records, once for every adapter (src/store/types.ts WebhookStore). */
import type { ColumnReader } from './rows.ts';
import { sealedIn, type Sealer } from './sealing.ts';
import type { ClaimedDelivery, Webhook, WebhookDelivery } from './types.ts';

export function toWebhook<Row>(read: ColumnReader<Row>, sealer: Sealer, row: Row): Webhook {
  const id = read.text(row, 'id');
  return {
    id,
    url: read.text(row, 'url'),
    events: read.stringList(row, 'events'),
    secret: sealer.open(
      { value: read.text(row, 'secret'), keyId: read.textOrNull(row, 'secret_key_id') },
      sealedIn.webhook(id),
    ),
    createdAt: read.int(row, 'created_at'),
    disabledAt: read.intOrNull(row, 'disabled_at'),
  };
}

export function toDelivery<Row>(read: ColumnReader<Row>, row: Row): WebhookDelivery {
  return {
    id: read.text(row, 'id'),
    webhookId: read.text(row, 'webhook_id'),
    eventId: read.text(row, 'event_id'),
    type: read.text(row, 'type'),
    createdAt: read.int(row, 'created_at'),
    attempts: read.int(row, 'attempts'),
    lastStatus: read.intOrNull(row, 'last_status'),
    lastError: read.textOrNull(row, 'last_error'),
    nextAttemptAt: read.intOrNull(row, 'next_attempt_at'),
    deliveredAt: read.intOrNull(row, 'delivered_at'),
  };
}

/** A claimed row: the delivery, its claim, and the hook's URL and opened secret. */
export function toClaimedDelivery<Row>(
  read: ColumnReader<Row>,
  sealer: Sealer,
  row: Row,
): ClaimedDelivery {
  const webhookId = read.text(row, 'webhook_id');
  return {
    ...toDelivery(read, row),
    claim: read.text(row, 'claim'),
    claimedUntil: read.int(row, 'claimed_until'),
    url: read.text(row, 'url'),
    secret: sealer.open(
      { value: read.text(row, 'secret'), keyId: read.textOrNull(row, 'secret_key_id') },
      sealedIn.webhook(webhookId),
    ),
    body: read.text(row, 'body'),
  };
}
