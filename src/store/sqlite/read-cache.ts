/**
 * A read cache for the hot path's lookups (client, token, owner), exact across processes:
 * `PRAGMA data_version` changes whenever another connection — the CLI, another process on
 * the same file — commits, and every write through this connection clears the cache itself.
 * So a revocation is still refused on the very next request, and a request with nothing new
 * in the database costs no B-tree lookup at all.
 */
import type { DatabaseSync } from 'node:sqlite';
import { LRUCache } from 'lru-cache';

export interface ReadCache {
  /**
   * Wraps a lookup by key; only found values are kept (a miss is not remembered), up to
   * `maxEntries` per lookup, the least recently used dropped first.
   */
  cached<V extends object>(
    load: (key: string) => Promise<V | undefined>,
  ): (key: string) => Promise<V | undefined>;
  /** Wraps every method of `target` but those named in `reads` so that it clears the cache. */
  invalidating<T extends object>(target: T, reads: readonly (keyof T)[]): T;
  clear(): void;
}

export function readCacheOn(db: DatabaseSync, maxEntries = 10_000): ReadCache {
  const version = db.prepare('PRAGMA data_version');
  const caches: Emptiable[] = [];
  let seen: unknown;
  // Bumped by every clear, so a lookup that raced a write does not store what it read.
  let generation = 0;

  function clear(): void {
    generation++;
    for (const cache of caches) empty(cache, maxEntries);
  }

  // Checked once per turn of the event loop: a commit elsewhere is seen by the next turn.
  let checkedThisTurn = false;
  const nextTurn = () => {
    checkedThisTurn = false;
  };

  function validate(): void {
    if (checkedThisTurn) return;
    checkedThisTurn = true;
    setImmediate(nextTurn);
    const current = version.get()?.data_version;
    if (current !== seen) {
      seen = current;
      clear();
    }
  }

  return {
    clear,
    cached<V extends object>(load: (key: string) => Promise<V | undefined>) {
      const cache = new LRUCache<string, V>({ max: maxEntries });
      caches.push(cache);
      return async (key: string): Promise<V | undefined> => {
        if (db.isOpen) validate();
        const hit = cache.get(key);
        if (hit !== undefined) return hit;
        const loadedIn = generation;
        const value = await load(key);
        if (value !== undefined && loadedIn === generation) cache.set(key, value);
        return value;
      };
    },
    invalidating<T extends object>(target: T, reads: readonly (keyof T)[]): T {
      const wrapped: Record<string, unknown> = {};
      for (const [name, member] of Object.entries(target)) {
        if (typeof member !== 'function' || reads.includes(name as keyof T)) {
          wrapped[name] = member;
          continue;
        }
        wrapped[name] = async (...args: unknown[]) => {
          try {
            return await (member as (...a: unknown[]) => Promise<unknown>)(...args);
          } finally {
            clear();
          }
        };
      }
      return wrapped as T;
    },
  };
}

/** What emptying needs of a cache (any LRUCache<string, V>). */
interface Emptiable {
  readonly size: number;
  keys(): Iterable<string>;
  delete(key: string): boolean;
  clear(): void;
}

/**
 * Empties `cache` at a cost that follows what it holds: lru-cache's clear() writes every slot
 * of its arrays (`max` of them) however few are used, and every write through the connection
 * empties the caches (a complete flow makes several writes with a handful of entries cached).
 */
function empty(cache: Emptiable, max: number): void {
  if (cache.size === 0) return;
  if (cache.size > max / 16) {
    cache.clear();
    return;
  }
  for (const key of [...cache.keys()]) cache.delete(key);
}
