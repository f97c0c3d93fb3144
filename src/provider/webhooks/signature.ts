/**
 * The signature a receiver checks (docs/webhooks.md "Verifying a delivery"), as Stripe signs
 * its events: HMAC-SHA256 under the hook's secret over `<timestamp>.<body>`, in the header
 * `Latchkey-Signature: t=<unix seconds>,v1=<hex>`. The timestamp is signed with the body, so
 * a receiver that refuses old timestamps refuses a replayed delivery.
 */
import { createHmac } from 'node:crypto';

export const SIGNATURE_HEADER = 'latchkey-signature';
export const DELIVERY_HEADER = 'latchkey-delivery';
export const EVENT_HEADER = 'latchkey-event';

export function signatureHeader(secret: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secret).update(`${timestampSeconds}.${body}`).digest('hex');
  return `t=${timestampSeconds},v1=${mac}`;
}
