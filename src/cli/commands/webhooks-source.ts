/**
 * Where the `webhooks` commands find and change hooks: the provider on the configured
 * database, or a server's admin API (`--server`). Both give the same records, so each command
 * prints the same way wherever it runs. Through the API, a hook's URL is checked against the
 * addresses the server's worker may reach, not this machine's setting.
 */
import type { Command } from 'commander';
import type { WebhookDelivery, WebhookDesk, WebhookSummary } from '../../provider/index.ts';
import { MAX_PAGE_SIZE } from '../../provider/index.ts';
import { withProvider } from '../context.ts';
import type { AdminApi } from '../remote/admin-api.ts';
import { remoteOf } from '../remote/target.ts';
import { configOf } from '../settings-options.ts';

export interface WebhooksSource {
  add(url: string, events: string[]): Promise<{ hook: WebhookSummary; secret: string }>;
  list(): Promise<WebhookSummary[]>;
  remove(id: string): Promise<void>;
  enable(id: string): Promise<void>;
  disable(id: string): Promise<void>;
  /** The events a hook receives, replaced. */
  setEvents(id: string, events: string[]): Promise<WebhookSummary>;
  /** Newest first; at most `limit` (100 by default). */
  deliveries(filter: {
    webhookId?: string | undefined;
    limit?: number | undefined;
  }): Promise<WebhookDelivery[]>;
}

/** How many deliveries are shown when no --limit is given (the provider's default too). */
const DEFAULT_DELIVERIES = 100;

export function webhooksSource(command: Command): WebhooksSource {
  const api = remoteOf(command);
  return api === undefined ? localWebhooks(command) : remoteWebhooks(api);
}

function localWebhooks(command: Command): WebhooksSource {
  const config = configOf(command);
  const run = <T>(work: (webhooks: WebhookDesk) => Promise<T>) =>
    withProvider(config, (provider) => work(provider.webhooks));
  return {
    add: (url, events) =>
      run((w) =>
        w.add(url, events, { allowPrivateAddresses: config.webhooks.allowPrivateAddresses }),
      ),
    list: () => run((w) => w.list()),
    remove: (id) => run((w) => w.remove(id)),
    enable: (id) => run((w) => w.enable(id)),
    disable: (id) => run(async (w) => void (await w.update(id, { disabled: true }))),
    setEvents: (id, events) => run((w) => w.update(id, { events })),
    deliveries: (filter) =>
      run((w) =>
        w.deliveries({ webhookId: filter.webhookId, limit: filter.limit ?? DEFAULT_DELIVERIES }),
      ),
  };
}

/** A hook as the admin API shows it (src/http/admin/webhooks.ts). */
interface HookJson {
  id: string;
  url: string;
  events: string[];
  createdAt: string;
  disabledAt: string | null;
  secret?: string;
}

type DeliveryJson = Omit<WebhookDelivery, 'createdAt' | 'nextAttemptAt' | 'deliveredAt'> & {
  createdAt: string;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
};

const msOf = (iso: string | null) => (iso === null ? null : Date.parse(iso));

const hookOf = (json: HookJson): WebhookSummary => ({
  id: json.id,
  url: json.url,
  events: json.events,
  createdAt: Date.parse(json.createdAt),
  disabledAt: msOf(json.disabledAt),
});

const deliveryOf = (json: DeliveryJson): WebhookDelivery => ({
  id: json.id,
  webhookId: json.webhookId,
  eventId: json.eventId,
  type: json.type,
  createdAt: Date.parse(json.createdAt),
  attempts: json.attempts,
  lastStatus: json.lastStatus,
  lastError: json.lastError,
  nextAttemptAt: msOf(json.nextAttemptAt),
  deliveredAt: msOf(json.deliveredAt),
});

/** The local list's order: by creation, then id. */
const byCreation = (a: WebhookSummary, b: WebhookSummary) =>
  a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

function remoteWebhooks(api: AdminApi): WebhooksSource {
  const path = (id: string, rest = '') => `/admin/webhooks/${encodeURIComponent(id)}${rest}`;
  return {
    async add(url, events) {
      const made = await api.call<HookJson>('POST', '/admin/webhooks', { body: { url, events } });
      return { hook: hookOf(made), secret: made.secret ?? '' };
    },
    list: async () => (await api.all<HookJson>('/admin/webhooks')).map(hookOf).sort(byCreation),
    remove: async (id) => {
      await api.call('DELETE', path(id));
    },
    enable: async (id) => {
      await api.call('POST', path(id, '/enable'));
    },
    disable: async (id) => {
      await api.call('POST', path(id, '/disable'));
    },
    // The admin API asks for If-Match on a change; `*` as the CLI changes what it is told.
    setEvents: async (id, events) =>
      hookOf(await api.call<HookJson>('PATCH', path(id), { body: { events }, ifMatch: '*' })),
    async deliveries(filter) {
      // Pages of the log until the limit is reached; an unknown hook has none, as locally.
      let left = filter.limit ?? DEFAULT_DELIVERIES;
      const found: WebhookDelivery[] = [];
      let cursor: string | undefined;
      while (left > 0) {
        const page = await api.call<{ items: DeliveryJson[]; next: string | null }>(
          'GET',
          '/admin/webhook-deliveries',
          {
            query: {
              webhook: filter.webhookId,
              limit: String(Math.min(left, MAX_PAGE_SIZE)),
              cursor,
            },
          },
        );
        found.push(...page.items.map(deliveryOf));
        left -= page.items.length;
        if (page.next === null) break;
        cursor = page.next;
      }
      return found;
    },
  };
}
