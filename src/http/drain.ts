/**
 * Draining on close, so that a rolling restart behind a load balancer drops no request
 * (docs/deployment.md, "Restarts that drop nothing"). When `app.close()` begins:
 *
 * 1. `/readyz` answers 503 `draining` (routes/health.ts reads `isDraining`);
 * 2. the listener closes (no new connection) and idle keep-alive connections are closed
 *    (Node's `server.close()`);
 * 3. a request already in flight, or one that arrives on a keep-alive connection still open,
 *    is served, and its answer says `Connection: close`, so the balancer never sends another
 *    request on that connection while it closes (Fastify's `return503OnClosing` is off: no
 *    request is refused with its generic 503); a gateway answer, streamed from the upstream
 *    past Fastify's hooks, has its connection closed right after it instead;
 * 4. meanwhile the webhook workers claim nothing more, and finish or give back their
 *    deliveries within the same deadline (src/provider/webhooks/worker.ts);
 * 5. when the last connection has closed, or the drain deadline has passed (connections still
 *    open are then cut), the onClose hooks close the store.
 */
import type { FastifyInstance } from 'fastify';

/**
 * The longest wait for requests in flight once closing began, in milliseconds, before the
 * connections still open are cut and the store closes. Below serve's `shutdownTimeoutMs`
 * (10 s), so that the store is closed cleanly after a drain that ran out of time.
 */
export const DEFAULT_DRAIN_TIMEOUT_MS = 5000;

export interface Drain {
  /** True from the moment `app.close()` begins. */
  readonly isDraining: () => boolean;
}

export function registerDrain(
  app: FastifyInstance,
  options: {
    readonly timeoutMs?: number | undefined;
    /** Told when the drain begins, with its timeout (the webhook workers stop within it). */
    readonly onDrain?: ((timeoutMs: number) => void) | undefined;
  } = {},
): Drain {
  const timeoutMs = options.timeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
  let draining = false;

  // preClose runs once Fastify has marked itself closing and before it calls server.close().
  app.addHook('preClose', function startDrain(done) {
    draining = true;
    options.onDrain?.(timeoutMs);
    // A response still streaming when the deadline comes is cut; unref'd: it never keeps an
    // otherwise finished process alive.
    const deadline = setTimeout(() => app.server.closeAllConnections(), timeoutMs).unref();
    app.server.once('close', () => clearTimeout(deadline));
    done();
  });

  // Requests that began before the drain: Fastify marks only those routed after it began.
  app.addHook('onSend', function closeAfterAnswer(_request, reply, payload, done) {
    if (draining && !reply.raw.headersSent) reply.header('connection', 'close');
    done(null, payload);
  });
  // An answer written past onSend (the gateway's, streamed from the upstream) went out with
  // keep-alive: its connection, idle once the answer is out, is closed then.
  app.addHook('onResponse', function closeWhenIdle(_request, reply, done) {
    if (draining && !reply.raw.hasHeader('connection')) app.server.closeIdleConnections();
    done();
  });

  return { isDraining: () => draining };
}
