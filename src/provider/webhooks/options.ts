/**
 * How webhooks are delivered (docs/webhooks.md "Delivery"): each default is defined here,
 * and the settings catalog (src/cli/config/config.ts) reads it.
 */
export interface WebhookDeliveryOptions {
  /** The longest one attempt may take: connecting, the answer's headers, its body (ms). */
  readonly timeoutMs: number;
  /**
   * How long a claim holds a delivery (ms). Longer than `timeoutMs`, so a live worker always
   * records its attempt before the claim runs out; when its instance dies, another instance
   * tries the delivery again after it.
   */
  readonly leaseMs: number;
  /** How often an idle worker looks for due deliveries (ms). */
  readonly pollIntervalMs: number;
  /** Deliveries one worker sends at once. */
  readonly concurrency: number;
  /** The first retry's delay (ms); each further retry waits twice as long, with jitter. */
  readonly retryBaseMs: number;
  /** The longest delay between two attempts (ms). */
  readonly retryMaxDelayMs: number;
  /** How long after the event deliveries are retried before they are given up (ms). */
  readonly retryForMs: number;
  /**
   * Send to loopback, private, link-local and other non-public addresses (docs/decisions.md
   * "Webhooks and server-side request forgery"). Off: such a hook is refused when added, and
   * an address a name resolves to at delivery is refused too.
   */
  readonly allowPrivateAddresses: boolean;
}

export const defaultWebhookOptions: WebhookDeliveryOptions = {
  timeoutMs: 10_000,
  leaseMs: 60_000,
  pollIntervalMs: 1000,
  concurrency: 8,
  retryBaseMs: 10_000,
  retryMaxDelayMs: 3_600_000,
  retryForMs: 86_400_000,
  allowPrivateAddresses: false,
};

/** How many bytes of a receiver's answer are read: the rest is never waited for. */
export const RESPONSE_READ_LIMIT_BYTES = 1024;
