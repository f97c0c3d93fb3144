/** The rate counters part of the store contract. */

/**
 * Fixed-window counters for rate limits, after the store contract of @fastify/rate-limit
 * (`incr(key, timeWindow)` answering the count and the time left): in Redis when the store
 * has it (every instance shares the count), in memory otherwise. Used by the provider's
 * rate limits only.
 */
export interface RateCounterStore {
  /**
   * Counts `hits` (default 1) on `key`, atomically: the hits in its current window (these
   * included) and the milliseconds until that window ends. The first hit starts a window of
   * `windowMs`.
   * Called by: provider/verify/rate-limits.ts (per-client request and failure limits).
   */
  incr(
    key: string,
    windowMs: number,
    hits?: number,
  ): Promise<{ readonly count: number; readonly ttlMs: number }>;
}
