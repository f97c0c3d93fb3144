/**
 * Webhooks (docs/webhooks.md): registering the URLs the team's systems receive events at,
 * the delivery log, and the worker that delivers. `latchkey webhooks` and `latchkey serve`
 * call this room through `provider.webhooks`.
 */
import { randomBytes } from 'node:crypto';
import type { ProviderEvents } from '../events.ts';
import type { Webhook, WebhookDelivery, WebhookStore } from '../../store/types.ts';
import { InputError, NotFoundError } from '../input-error.ts';
import { EVERY_EVENT, isWebhookEventName, webhookEventNames } from './event-types.ts';
import { checkHookUrl } from './hook-url.ts';
import type { Page, PageRequest } from '../admin/paging.ts';
import {
  createWebhookAdmin,
  type DeliveryPageRequest,
  type WebhookChangeRequest,
} from './webhook-admin.ts';
import { defaultWebhookOptions, type WebhookDeliveryOptions } from './options.ts';
import { createWebhookQueue } from './webhook-queue.ts';
import { startWebhookWorker, type WebhookWorker } from './worker.ts';

/** A hook as listed: never its secret. */
export type WebhookSummary = Omit<Webhook, 'secret'>;

export interface WebhookDesk {
  /**
   * Registers a hook for `events` (public names, or `*`); the secret is returned this once.
   * InputError for a URL that is not allowed (hook-url.ts) or an unknown event name. Private
   * addresses are allowed as `options` says, else as this process's worker is (`serve`'s
   * setting: a hook the worker would refuse to reach is refused when added), else not.
   */
  add(
    url: string,
    events: readonly string[],
    options?: { readonly allowPrivateAddresses?: boolean | undefined },
  ): Promise<{ readonly hook: WebhookSummary; readonly secret: string }>;
  list(): Promise<WebhookSummary[]>;
  /** Removes the hook and its delivery log; NotFoundError when unknown. */
  remove(id: string): Promise<void>;
  /** Lets a hook disabled by a 410 Gone receive again (its waiting deliveries too). */
  enable(id: string): Promise<void>;
  /** The hooks in id order, a page at a time (the admin API). */
  listPage(request: PageRequest): Promise<Page<WebhookSummary>>;
  /** One hook, never its secret; NotFoundError when unknown. */
  get(id: string): Promise<WebhookSummary>;
  /** Changes the events a hook receives, or stops or resumes sending to it. */
  update(id: string, changes: WebhookChangeRequest): Promise<WebhookSummary>;
  /** The delivery log a page at a time, newest first (the admin API). */
  deliveryPage(request: DeliveryPageRequest): Promise<Page<WebhookDelivery>>;
  /** The delivery log, newest first. */
  deliveries(filter?: {
    readonly webhookId?: string | undefined;
    readonly limit?: number | undefined;
  }): Promise<WebhookDelivery[]>;
  /** Starts delivering from the queue (`latchkey serve`); stopped by `stopWorkers`. */
  startWorker(options?: Partial<WebhookDeliveryOptions>): WebhookWorker;
  /**
   * Stops every worker started here (the drain of `serve`, then provider close): each
   * finishes its deliveries within `graceMs` and gives back the rest while the store is open.
   */
  stopWorkers(graceMs?: number): Promise<void>;
  /** Resolves when every event so far is in the queue (the provider awaits it on close). */
  settled(): Promise<void>;
}

function summary({ secret: _secret, ...hook }: Webhook): WebhookSummary {
  return hook;
}

function checkEvents(names: readonly string[]): string[] {
  const unique = [...new Set(names.map((name) => name.trim()).filter((name) => name !== ''))];
  if (unique.length === 0) {
    throw new InputError(
      'events',
      `Name the events to send: ${webhookEventNames.join(', ')}, or *.`,
    );
  }
  const unknown = unique.filter((name) => name !== EVERY_EVENT && !isWebhookEventName(name));
  if (unknown.length > 0) {
    throw new InputError(
      'events',
      `Unknown event ${unknown.join(', ')}; known: ${webhookEventNames.join(', ')}, or *.`,
    );
  }
  return unique;
}

export function createWebhookDesk(
  store: WebhookStore,
  now: () => number,
  events: ProviderEvents,
): WebhookDesk {
  const queue = createWebhookQueue(store, events, now);
  const workers = new Set<WebhookWorker>();
  let workerAllowsPrivate: boolean | undefined;
  const admin = createWebhookAdmin({ store, now, events, summary, checkEvents });
  return {
    async add(url, names, options = {}) {
      const checked = checkHookUrl(
        url,
        options.allowPrivateAddresses ??
          workerAllowsPrivate ??
          defaultWebhookOptions.allowPrivateAddresses,
      );
      const hook = await store.create({
        id: `wh_${randomBytes(9).toString('base64url')}`,
        url: checked,
        events: checkEvents(names),
        secret: `whsec_${randomBytes(32).toString('base64url')}`,
        createdAt: now(),
      });
      events.emit('webhook.created', { webhookId: hook.id });
      return { hook: summary(hook), secret: hook.secret };
    },
    async list() {
      return (await store.list()).map(summary);
    },
    async remove(id) {
      if (!(await store.remove(id))) throw new NotFoundError(`No webhook ${id}.`);
      events.emit('webhook.removed', { webhookId: id });
    },
    async enable(id) {
      if (!(await store.enable(id))) throw new NotFoundError(`No webhook ${id}.`);
      events.emit('webhook.enabled', { webhookId: id });
    },
    listPage: admin.listPage,
    get: admin.get,
    update: admin.update,
    deliveryPage: admin.deliveryPage,
    deliveries(filter = {}) {
      return store.deliveries({ webhookId: filter.webhookId, limit: filter.limit ?? 100 });
    },
    startWorker(options = {}) {
      const resolved = { ...defaultWebhookOptions, ...options };
      if (resolved.leaseMs <= resolved.timeoutMs) {
        throw new RangeError("The webhook lease must be longer than one attempt's timeout.");
      }
      workerAllowsPrivate = resolved.allowPrivateAddresses;
      const worker = startWebhookWorker(store, resolved, now, events);
      workers.add(worker);
      return worker;
    },
    async stopWorkers(graceMs) {
      await Promise.all([...workers].map((worker) => worker.stop(graceMs)));
    },
    settled: () => queue.settled(),
  };
}
