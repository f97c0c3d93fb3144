/**
 * When a failed delivery is tried again: exponential backoff with "equal jitter" (half the
 * delay fixed, half random), so receivers coming back are not met by every instance's
 * retries at once; given up once the next try would fall after the retry window.
 */
import type { WebhookDeliveryOptions } from './options.ts';

export function nextAttemptAt(
  options: Pick<WebhookDeliveryOptions, 'retryBaseMs' | 'retryMaxDelayMs' | 'retryForMs'>,
  delivery: { readonly attempts: number; readonly createdAt: number },
  now: number,
  random: () => number = Math.random,
): number | null {
  const exponent = Math.min(Math.max(delivery.attempts - 1, 0), 40);
  const delay = Math.min(options.retryBaseMs * 2 ** exponent, options.retryMaxDelayMs);
  const at = now + Math.ceil(delay / 2 + (random() * delay) / 2);
  return at > delivery.createdAt + options.retryForMs ? null : at;
}
