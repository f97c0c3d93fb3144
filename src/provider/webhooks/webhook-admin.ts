/**
 * What the admin API does with hooks beyond the CLI's add, list and remove (docs/admin.md
 * "Webhooks"): one hook, changing the events it receives, stopping and resuming it, and the
 * delivery log a page at a time. Each change is announced (the audit trail).
 */
import type { ProviderEvents } from '../events.ts';
import type {
  DeliveryPosition,
  Webhook,
  WebhookDelivery,
  WebhookStore,
} from '../../store/types.ts';
import {
  decodeCursor,
  encodeCursor,
  pageOf,
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
} from '../admin/paging.ts';
import type { Page, PageRequest } from '../admin/paging.ts';
import { InputError, NotFoundError } from '../input-error.ts';
import type { WebhookSummary } from './webhooks.ts';

export interface WebhookChangeRequest {
  /** Public event names, or `*` (checked as `add` checks them). */
  readonly events?: readonly string[] | undefined;
  /** true stops sending to the hook (as a 410 Gone does); false lets it receive again. */
  readonly disabled?: boolean | undefined;
}

export interface DeliveryPageRequest extends PageRequest {
  readonly webhookId?: string | undefined;
}

/** A delivery's place in the log, as a cursor: `[createdAt, id]` of the page's last one. */
function positionOf(cursor: string): DeliveryPosition {
  const key = decodeCursor(cursor);
  let parsed: unknown;
  try {
    parsed = JSON.parse(key);
  } catch {
    parsed = undefined;
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 2 ||
    !Number.isSafeInteger(parsed[0]) ||
    typeof parsed[1] !== 'string'
  ) {
    throw new InputError('cursor', 'This cursor is not one we gave.');
  }
  return { createdAt: parsed[0] as number, id: parsed[1] };
}

export function createWebhookAdmin(deps: {
  readonly store: WebhookStore;
  readonly now: () => number;
  readonly events: ProviderEvents;
  readonly summary: (hook: Webhook) => WebhookSummary;
  readonly checkEvents: (names: readonly string[]) => string[];
}) {
  const { store, now, events, summary, checkEvents } = deps;

  async function get(id: string): Promise<WebhookSummary> {
    const hook = (await store.list()).find((h) => h.id === id);
    if (hook === undefined) throw new NotFoundError(`No webhook ${id}.`);
    return summary(hook);
  }

  return {
    get,

    /** The hooks in id order, a page at a time. */
    async listPage(request: PageRequest): Promise<Page<WebhookSummary>> {
      return pageOf((await store.list()).map(summary), (hook) => hook.id, request);
    },

    async update(id: string, changes: WebhookChangeRequest): Promise<WebhookSummary> {
      const before = await get(id);
      const names = changes.events === undefined ? undefined : checkEvents(changes.events);
      const disabledAt =
        changes.disabled === undefined || changes.disabled === (before.disabledAt !== null)
          ? undefined
          : changes.disabled
            ? now()
            : null;
      const changed = await store.update(id, {
        ...(names === undefined ? {} : { events: names }),
        ...(disabledAt === undefined ? {} : { disabledAt }),
      });
      if (changed === undefined) throw new NotFoundError(`No webhook ${id}.`);
      if (names !== undefined && names.join(',') !== before.events.join(',')) {
        events.emit('webhook.updated', { webhookId: id, fields: ['events'] });
      }
      if (disabledAt !== undefined) {
        events.emit(disabledAt === null ? 'webhook.enabled' : 'webhook.disabled', {
          webhookId: id,
        });
      }
      return summary(changed);
    },

    /**
     * A page of the log (of one hook, or all), newest first; `next` names the page's last
     * delivery. An unknown hook has no deliveries, as `latchkey webhooks deliveries` says.
     */
    async deliveryPage(request: DeliveryPageRequest): Promise<Page<WebhookDelivery>> {
      const limit = request.limit ?? DEFAULT_PAGE_SIZE;
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
        throw new InputError('limit', `A page holds 1 to ${MAX_PAGE_SIZE} items.`);
      }
      const before = request.cursor === undefined ? undefined : positionOf(request.cursor);
      // One more than the page: whether there is a next one.
      const found = await store.deliveries({
        webhookId: request.webhookId,
        limit: limit + 1,
        before,
      });
      const items = found.slice(0, limit);
      const last = items.at(-1);
      return {
        items,
        next:
          found.length > limit && last !== undefined
            ? encodeCursor(JSON.stringify([last.createdAt, last.id]))
            : undefined,
      };
    },
  };
}

export type WebhookAdmin = ReturnType<typeof createWebhookAdmin>;
