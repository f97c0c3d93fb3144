/** Webhooks and their durable delivery queue (docs/webhooks.md). */
/** A registered webhook (docs/webhooks.md): where events are sent and which ones. */
export interface Webhook {
  readonly id: string;
  readonly url: string;
  /** Public event types it receives (`grant.created`…), or `*` for every one. */
  readonly events: readonly string[];
  /** The signing secret, opened (src/store/sealing.ts); never logged or listed. */
  readonly secret: string;
  readonly createdAt: number;
  /**
   * Set when the receiver answered 410 Gone, or an operator disabled it: nothing more is
   * queued or sent until it is enabled.
   */
  readonly disabledAt: number | null;
}

export type NewWebhook = Omit<Webhook, 'disabledAt'>;

/** What an operator may change of a hook (WebhookStore.update). */
export interface WebhookChanges {
  readonly events?: readonly string[] | undefined;
  readonly disabledAt?: number | null | undefined;
}

/** Where a delivery stands in the log's order (WebhookStore.deliveries `before`). */
export interface DeliveryPosition {
  readonly createdAt: number;
  readonly id: string;
}

/** One event to send: the body is fixed at enqueue, so every attempt sends the same bytes. */
export interface WebhookEvent {
  readonly id: string;
  readonly type: string;
  readonly createdAt: number;
  /** The JSON body (`{id, type, created, data}`). */
  readonly body: string;
}

/** One event for one hook, as the delivery log shows it. */
export interface WebhookDelivery {
  /** The delivery id (the `Latchkey-Delivery` header): the receiver's idempotency key. */
  readonly id: string;
  readonly webhookId: string;
  readonly eventId: string;
  readonly type: string;
  readonly createdAt: number;
  /** Attempts begun (a claim counts one; a released claim gives it back). */
  readonly attempts: number;
  /** The receiver's last HTTP status; null before any answer (or after none came). */
  readonly lastStatus: number | null;
  /** Why the last attempt failed without a status (timeout, refused, address not allowed). */
  readonly lastError: string | null;
  /** When it is due next; null once delivered or given up. */
  readonly nextAttemptAt: number | null;
  readonly deliveredAt: number | null;
}

/** A delivery claimed by one worker until `claimedUntil`, with what sending it needs. */
export interface ClaimedDelivery extends WebhookDelivery {
  /** This claim's token: only its holder may complete or release the delivery. */
  readonly claim: string;
  readonly claimedUntil: number;
  readonly url: string;
  readonly secret: string;
  readonly body: string;
}

/** How an attempt ended (WebhookStore.complete). */
export type DeliveryOutcome =
  | { readonly kind: 'delivered'; readonly status: number; readonly at: number }
  | {
      readonly kind: 'failed';
      readonly status: number | null;
      readonly error: string | null;
      /** When to try again; null gives up. */
      readonly nextAttemptAt: number | null;
      /** Disables the hook too, at this time (the receiver answered 410 Gone). */
      readonly disableHookAt?: number | undefined;
    };

/**
 * Webhooks and their durable delivery queue (docs/webhooks.md). Deliveries are claimed with a
 * lease: a claim lasts until `claimedUntil`, and a delivery whose claim ran out (its worker
 * died) is due again. Claiming is atomic across instances (PostgreSQL: FOR UPDATE SKIP
 * LOCKED), so no delivery is held by two live workers at once.
 */
export interface WebhookStore {
  /** The secret is sealed as client secrets are. Called by: provider/webhooks (`webhooks add`). */
  create(hook: NewWebhook): Promise<Webhook>;
  /** Called by: provider/webhooks (`webhooks list`). */
  list(): Promise<Webhook[]>;
  /** Removes the hook and its deliveries. Called by: provider/webhooks (`webhooks remove`). */
  remove(id: string): Promise<boolean>;
  /** Clears `disabledAt`. Called by: provider/webhooks (`webhooks enable`). */
  enable(id: string): Promise<boolean>;
  /**
   * Changes the events a hook receives and/or its `disabledAt` (an operator disabling it as a
   * 410 Gone would); the hook as changed, or undefined when unknown.
   * Called by: provider/webhooks (the admin API's PATCH, enable and disable).
   */
  update(id: string, changes: WebhookChanges): Promise<Webhook | undefined>;
  /**
   * One delivery of `event` per enabled hook subscribed to its type, due at `event.createdAt`,
   * in one statement; returns how many. Called by: provider/webhooks/enqueue.ts (each event).
   */
  enqueue(event: WebhookEvent): Promise<number>;
  /**
   * Up to `limit` due deliveries (enabled hook, not delivered, next attempt at or before
   * `now`, no live claim), oldest first, each claimed until `now + leaseMs` and its attempt
   * counted. Called by: provider/webhooks/worker.ts.
   */
  claim(now: number, leaseMs: number, limit: number): Promise<ClaimedDelivery[]>;
  /**
   * Records an attempt's outcome, if `claim` still holds the delivery (a worker whose lease
   * ran out changes nothing). Called by: provider/webhooks/worker.ts.
   */
  complete(id: string, claim: string, outcome: DeliveryOutcome): Promise<boolean>;
  /**
   * Gives a claimed delivery back, due at once and its attempt not counted (a worker
   * stopping). Called by: provider/webhooks/worker.ts stop.
   */
  release(id: string, claim: string): Promise<boolean>;
  /**
   * Newest first (by creation, then id, both descending); with `before`, only those after it
   * in that order (a page's last delivery: the admin API's cursor).
   * Called by: provider/webhooks (`webhooks deliveries`, the admin API).
   */
  deliveries(filter: {
    readonly webhookId?: string | undefined;
    readonly limit: number;
    readonly before?: DeliveryPosition | undefined;
  }): Promise<WebhookDelivery[]>;
  /** Deletes delivered and given-up deliveries created before `before`; returns how many. */
  purgeFinishedBefore(before: number): Promise<number>;
}
