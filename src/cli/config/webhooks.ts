/**
 * The settings of webhook deliveries (docs/webhooks.md): how long an attempt and a claim
 * last, how often and how many, the retry schedule, and which addresses a hook may reach. The
 * defaults are the webhook worker's own (src/provider/webhooks/options.ts).
 */
import { boolean, integer } from './config-values.ts';
import type { Setting } from './config-values.ts';
import { defaultWebhookOptions } from '../../provider/webhooks/options.ts';

export const webhookSettings = {
  /**
   * The longest one webhook delivery attempt may take, in milliseconds: connecting, the
   * receiver's answer and the part of its body that is read. A receiver that takes longer is
   * tried again later (docs/webhooks.md).
   */
  'webhooks.timeoutMs': {
    env: 'LATCHKEY_WEBHOOKS_TIMEOUT_MS',
    flag: '--webhooks-timeout <ms>',
    summary: 'longest webhook delivery attempt, ms',
    default: defaultWebhookOptions.timeoutMs,
    parse: integer(100, 120_000),
  },
  /**
   * How long an instance holds a webhook delivery it claimed, in milliseconds; longer than
   * `webhooks.timeoutMs`. When an instance dies mid-delivery, another one tries the delivery
   * again once this has passed.
   */
  'webhooks.leaseMs': {
    env: 'LATCHKEY_WEBHOOKS_LEASE_MS',
    flag: '--webhooks-lease <ms>',
    summary: 'how long a claimed webhook delivery is held, ms',
    default: defaultWebhookOptions.leaseMs,
    parse: integer(200, 3_600_000),
  },
  /** How often an idle instance looks for webhook deliveries that are due, in milliseconds. */
  'webhooks.pollIntervalMs': {
    env: 'LATCHKEY_WEBHOOKS_POLL_INTERVAL_MS',
    flag: '--webhooks-poll-interval <ms>',
    summary: 'how often to look for due webhook deliveries, ms',
    default: defaultWebhookOptions.pollIntervalMs,
    parse: integer(10, 600_000),
  },
  /** Webhook deliveries one instance sends at once. */
  'webhooks.concurrency': {
    env: 'LATCHKEY_WEBHOOKS_CONCURRENCY',
    flag: '--webhooks-concurrency <count>',
    summary: 'webhook deliveries sent at once per instance',
    default: defaultWebhookOptions.concurrency,
    parse: integer(1, 256),
  },
  /**
   * The delay before a failed webhook delivery is first tried again, in milliseconds; each
   * further try waits twice as long (half of it random), up to `webhooks.retryMaxDelayMs`.
   */
  'webhooks.retryBaseMs': {
    env: 'LATCHKEY_WEBHOOKS_RETRY_BASE_MS',
    flag: '--webhooks-retry-base <ms>',
    summary: 'first webhook retry delay, ms',
    default: defaultWebhookOptions.retryBaseMs,
    parse: integer(10, 3_600_000),
  },
  /** The longest delay between two tries of a webhook delivery, in milliseconds. */
  'webhooks.retryMaxDelayMs': {
    env: 'LATCHKEY_WEBHOOKS_RETRY_MAX_DELAY_MS',
    flag: '--webhooks-retry-max-delay <ms>',
    summary: 'longest delay between webhook retries, ms',
    default: defaultWebhookOptions.retryMaxDelayMs,
    parse: integer(10, 86_400_000),
  },
  /**
   * How long after its event a webhook delivery is tried before it is given up, in
   * milliseconds (default a day).
   */
  'webhooks.retryForMs': {
    env: 'LATCHKEY_WEBHOOKS_RETRY_FOR_MS',
    flag: '--webhooks-retry-for <ms>',
    summary: 'how long webhook deliveries are retried, ms',
    default: defaultWebhookOptions.retryForMs,
    parse: integer(1000, 7 * 86_400_000),
  },
  /**
   * Let webhooks be sent to loopback, private, link-local and other non-public addresses
   * (a receiver on this machine or the private network). Off by default, so a hook cannot be
   * used to reach the private network from the server (docs/decisions.md).
   */
  'webhooks.allowPrivateAddresses': {
    env: 'LATCHKEY_WEBHOOKS_ALLOW_PRIVATE_ADDRESSES',
    flag: '--webhooks-allow-private-addresses',
    summary: 'allow webhooks to loopback and private addresses',
    default: defaultWebhookOptions.allowPrivateAddresses,
    parse: boolean,
  },
} as const satisfies Record<string, Setting<unknown>>;
