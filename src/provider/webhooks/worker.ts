/**
 * The delivery worker every `latchkey serve` runs (docs/webhooks.md "Delivery"): it claims
 * due deliveries from the store's queue with a lease, sends each (send-delivery.ts), and
 * records the outcome under its claim: delivered on a 2xx, otherwise tried again after a
 * backoff (retry-schedule.ts) until the retry window ends; a 410 Gone disables the hook.
 * Stopping (the drain of `serve`) claims nothing more, lets the deliveries in flight finish
 * within a grace period, and gives back the ones still in flight after it, due at once for
 * any instance. A worker that dies gives back nothing: its claims run out after the lease.
 */
import type { ProviderEvents } from '../events.ts';
import type { ClaimedDelivery, DeliveryOutcome, WebhookStore } from '../../store/types.ts';
import type { WebhookDeliveryOptions } from './options.ts';
import { nextAttemptAt } from './retry-schedule.ts';
import type { AttemptResult } from './send-delivery.ts';

export interface WebhookWorker {
  /**
   * Claims nothing more; waits up to `graceMs` (default: one attempt's timeout) for the
   * deliveries in flight, then aborts and gives back the rest. Called again, it waits for the
   * stop already begun.
   */
  stop(graceMs?: number): Promise<void>;
}

/** The receiver says the hook is gone for good: it is disabled (docs/webhooks.md). */
const GONE = 410;

function outcomeOf(
  options: WebhookDeliveryOptions,
  delivery: ClaimedDelivery,
  result: AttemptResult,
  at: number,
): DeliveryOutcome {
  if (result.status !== null && result.status >= 200 && result.status < 300) {
    return { kind: 'delivered', status: result.status, at };
  }
  return {
    kind: 'failed',
    status: result.status,
    error: result.status === null ? result.error : null,
    nextAttemptAt: nextAttemptAt(options, delivery, at),
    ...(result.status === GONE ? { disableHookAt: at } : {}),
  };
}

/** The HTTP client (undici) is loaded when a worker starts, not by every CLI command. */
function loadSender(options: WebhookDeliveryOptions) {
  return import('./send-delivery.ts').then(({ deliveryAgent, sendDelivery }) => ({
    agent: deliveryAgent(options),
    sendDelivery,
  }));
}

interface DeliveryContext {
  readonly store: WebhookStore;
  readonly options: WebhookDeliveryOptions;
  readonly now: () => number;
  readonly events: ProviderEvents;
  readonly sender: ReturnType<typeof loadSender>;
  /** Aborts the attempt once a stop's grace period is over. */
  readonly signal: AbortSignal;
}

/** Sends one claimed delivery and records the outcome under its claim. */
async function deliver(context: DeliveryContext, delivery: ClaimedDelivery): Promise<void> {
  const { store, options, now, events } = context;
  const { agent, sendDelivery } = await context.sender;
  const result = await sendDelivery(agent, delivery, options, now, context.signal);
  try {
    if (result.status === null && result.aborted) {
      // Stopped mid-way: the receiver may or may not have it; it is due again at once.
      await store.release(delivery.id, delivery.claim);
      return;
    }
    const outcome = outcomeOf(options, delivery, result, now());
    const recorded = await store.complete(delivery.id, delivery.claim, outcome);
    const attempt = {
      deliveryId: delivery.id,
      webhookId: delivery.webhookId,
      type: delivery.type,
      status: result.status,
      error: result.status === null ? result.error : undefined,
      recorded,
    };
    if (outcome.kind === 'delivered') events.emit('webhook.delivered', attempt);
    else events.emit('webhook.failed', attempt);
  } catch (error) {
    // The store is away: the claim runs out after the lease and the delivery is tried again.
    events.emit('error.webhooks', error);
  }
}

export function startWebhookWorker(
  store: WebhookStore,
  options: WebhookDeliveryOptions,
  now: () => number,
  events: ProviderEvents,
): WebhookWorker {
  const sender = loadSender(options);
  /** Aborts the deliveries still in flight once a stop's grace period is over. */
  const stopping = new AbortController();
  const context = { store, options, now, events, sender, signal: stopping.signal };
  let claiming = true;
  const inFlight = new Set<Promise<void>>();
  let wake: (() => void) | undefined;
  const wakeUp = () => wake?.();
  // webhook-queue.ts announces each enqueue: an idle worker wakes at once.
  events.on('webhook.enqueued', wakeUp);

  function idle(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
    });
  }

  async function run(): Promise<void> {
    while (claiming) {
      const free = options.concurrency - inFlight.size;
      let claimed: ClaimedDelivery[] = [];
      if (free > 0) {
        try {
          claimed = await store.claim(now(), options.leaseMs, free);
        } catch (error) {
          events.emit('error.webhooks', error);
        }
      }
      if (!claiming) {
        // Claimed as the stop began: given back untried.
        await Promise.all(claimed.map((d) => store.release(d.id, d.claim).catch(() => false)));
        return;
      }
      for (const delivery of claimed) {
        const running = deliver(context, delivery).finally(() => {
          inFlight.delete(running);
          wakeUp();
        });
        inFlight.add(running);
      }
      // A full batch may mean more are due: look again at once; else when woken or polled.
      if (claimed.length < free || inFlight.size >= options.concurrency) {
        await idle(options.pollIntervalMs);
      }
    }
  }

  const loop = run();

  let stopped: Promise<void> | undefined;
  async function stop(graceMs: number): Promise<void> {
    claiming = false;
    events.off('webhook.enqueued', wakeUp);
    wakeUp();
    await loop;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
    await Promise.race([Promise.all(inFlight), grace]);
    clearTimeout(timer);
    stopping.abort();
    await Promise.all(inFlight);
    await (await sender).agent.close().catch(() => undefined);
  }

  return {
    stop(graceMs = options.timeoutMs) {
      // The first stop decides the grace period; a later one waits for the same end.
      stopped ??= stop(graceMs);
      return stopped;
    },
  };
}
