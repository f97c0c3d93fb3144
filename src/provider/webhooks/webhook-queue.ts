/**
 * Events into the queue: each provider event with a webhook type (event-types.ts) is written
 * to the store's delivery queue as one delivery per subscribed hook, by the process that made
 * the change (an instance, or the CLI), in the store the change was made in. The body is
 * fixed here, so every attempt of every hook sends the same event id and bytes.
 */
import { randomBytes } from 'node:crypto';
import type { ProviderEvents } from '../events.ts';
import type { WebhookStore } from '../../store/types.ts';
import { webhookEventTypes } from './event-types.ts';

type Facts = Record<string, unknown>;

export interface WebhookQueue {
  /** Resolves when every event announced so far is in the queue (or failed to be). */
  settled(): Promise<void>;
}

export function newEventId(): string {
  return `evt_${randomBytes(16).toString('base64url')}`;
}

export function createWebhookQueue(
  store: WebhookStore,
  events: ProviderEvents,
  now: () => number,
): WebhookQueue {
  const pending = new Set<Promise<void>>();

  function enqueue(type: string, fields: readonly string[], facts: Facts): void {
    const data: Facts = {};
    for (const field of fields) if (facts[field] !== undefined) data[field] = facts[field];
    const createdAt = now();
    const id = newEventId();
    const body = JSON.stringify({ id, type, created: Math.floor(createdAt / 1000), data });
    const write = store.enqueue({ id, type, createdAt, body }).then(
      (count) => {
        if (count > 0) events.emit('webhook.enqueued', { id, type, count });
      },
      (error: unknown) => {
        events.emit('error.webhooks', error);
      },
    );
    const tracked = write.finally(() => pending.delete(tracked));
    pending.add(tracked);
  }

  for (const [type, { from, data }] of Object.entries(webhookEventTypes)) {
    events.on(from, (facts: Facts = {}) => enqueue(type, data, facts));
  }

  return {
    async settled() {
      await Promise.all(pending);
    },
  };
}
