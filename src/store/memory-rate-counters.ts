/**
 * Rate-limit counters in this process's memory (the embedded store: one process serves),
 * after @fastify/rate-limit's LocalStore: a fixed window per key that starts with its first
 * hit. Bounded by lru-cache: past `maxKeys` the key used least recently goes, in constant
 * time, so a flood of new keys costs each insert the same as the first (no scan of the
 * windows) and cannot grow the map without limit.
 */
import { LRUCache } from 'lru-cache';
import type { RateCounterStore } from './types.ts';

export interface MemoryRateCounterOptions {
  readonly now?: (() => number) | undefined;
  /** Keys kept at most (default 100 000). */
  readonly maxKeys?: number | undefined;
}

interface Window {
  count: number;
  endsAt: number;
}

/** The counters, and how many keys they hold (for the bounded-size check). */
export interface MemoryRateCounters extends RateCounterStore {
  readonly size: number;
}

export function createMemoryRateCounters(
  options: MemoryRateCounterOptions = {},
): MemoryRateCounters {
  const now = options.now ?? Date.now;
  // A window that ended is replaced on its key's next hit; until then it only takes a slot
  // the least recently used order gives up first.
  const windows = new LRUCache<string, Window>({ max: options.maxKeys ?? 100_000 });

  return {
    async incr(key, windowMs, hits = 1) {
      const at = now();
      let window = windows.get(key);
      if (window === undefined || window.endsAt <= at) {
        window = { count: 0, endsAt: at + windowMs };
        windows.set(key, window);
      }
      window.count += hits;
      return { count: window.count, ttlMs: window.endsAt - at };
    },
    get size() {
      return windows.size;
    },
  };
}
