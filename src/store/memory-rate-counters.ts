/**
 * Rate-limit counters in this process's memory (the embedded store: one process serves),
 * after @fastify/rate-limit's LocalStore: a fixed window per key that starts with its first
 * hit. Bounded: past `maxKeys` the windows that ended are dropped, and if none has, the oldest
 * key goes, so a flood of made-up keys cannot grow the map without limit.
 */
import type { RateCounterStore } from './types.ts';

export interface MemoryRateCounterOptions {
  readonly now?: (() => number) | undefined;
  /** Keys kept at most (default 100 000). */
  readonly maxKeys?: number | undefined;
}

export function createMemoryRateCounters(options: MemoryRateCounterOptions = {}): RateCounterStore {
  const now = options.now ?? Date.now;
  const maxKeys = options.maxKeys ?? 100_000;
  const windows = new Map<string, { count: number; endsAt: number }>();

  function makeRoom(at: number): void {
    for (const [key, window] of windows) if (window.endsAt <= at) windows.delete(key);
    if (windows.size >= maxKeys) {
      const oldest = windows.keys().next();
      if (oldest.done !== true) windows.delete(oldest.value);
    }
  }

  return {
    async incr(key, windowMs, hits = 1) {
      const at = now();
      let window = windows.get(key);
      if (window === undefined || window.endsAt <= at) {
        if (window === undefined && windows.size >= maxKeys) makeRoom(at);
        window = { count: 0, endsAt: at + windowMs };
        windows.set(key, window);
      }
      window.count += hits;
      return { count: window.count, ttlMs: window.endsAt - at };
    },
  };
}
