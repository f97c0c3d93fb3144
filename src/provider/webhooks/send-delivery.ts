/**
 * One attempt at one delivery: a signed POST with undici, every wait bounded by the attempt's
 * timeout (connecting, the answer's headers, its body), no redirect followed (a 3xx is an
 * answer like any other non-2xx: retried), and at most RESPONSE_READ_LIMIT_BYTES of the
 * answer read, so neither a receiver that never answers nor one that answers without end
 * holds a worker.
 */
import { Agent, request } from 'undici';
import type { ClaimedDelivery } from '../../store/types.ts';
import { checkLiteralHost, guardedLookup } from './hook-url.ts';
import { RESPONSE_READ_LIMIT_BYTES, type WebhookDeliveryOptions } from './options.ts';
import { DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER, signatureHeader } from './signature.ts';

/** What came back: a status, or why none did. */
export type AttemptResult =
  | { readonly status: number }
  | { readonly status: null; readonly error: string; readonly aborted: boolean };

/** The connections deliveries share, with the address guard on every socket. */
export function deliveryAgent(
  options: Pick<WebhookDeliveryOptions, 'timeoutMs' | 'allowPrivateAddresses'>,
): Agent {
  return new Agent({
    connect: {
      timeout: options.timeoutMs,
      ...(options.allowPrivateAddresses ? {} : { lookup: guardedLookup }),
    },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    keepAliveTimeout: 4000,
  });
}

/** Why an attempt got no status, in a few words for the delivery log (never a secret). */
function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return 'failed';
  const code = (error as { code?: unknown }).code;
  const cause = (error as { cause?: { code?: unknown } }).cause?.code;
  if (error.name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT') return 'timeout';
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return 'timeout';
  if (typeof code === 'string') return code;
  if (typeof cause === 'string') return cause;
  return error.name;
}

export async function sendDelivery(
  agent: Agent,
  delivery: ClaimedDelivery,
  options: Pick<WebhookDeliveryOptions, 'timeoutMs' | 'allowPrivateAddresses'>,
  now: () => number,
  stop: AbortSignal,
): Promise<AttemptResult> {
  const signal = AbortSignal.any([AbortSignal.timeout(options.timeoutMs), stop]);
  try {
    checkLiteralHost(new URL(delivery.url), options.allowPrivateAddresses);
    const response = await request(delivery.url, {
      dispatcher: agent,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Latchkey-Webhooks',
        [SIGNATURE_HEADER]: signatureHeader(
          delivery.secret,
          Math.floor(now() / 1000),
          delivery.body,
        ),
        [DELIVERY_HEADER]: delivery.id,
        [EVENT_HEADER]: delivery.type,
      },
      body: delivery.body,
      signal,
    });
    // The answer's body is not needed: a bounded part is read so the connection can be reused.
    await response.body.dump({ limit: RESPONSE_READ_LIMIT_BYTES, signal }).catch(() => undefined);
    return { status: response.statusCode };
  } catch (error) {
    return { status: null, error: reasonOf(error), aborted: stop.aborted };
  }
}
