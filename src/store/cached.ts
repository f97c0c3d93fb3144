/**
 * Caches on each instance (../shared/design/ARCHITECTURE.md hot path step 3: no store round
 * trip for the client and token "where a cache can serve"). A store decorator keeps
 * `clients.find`, `tokenCredentials.find` and `owners.findById` answers in a bounded LRU with a TTL as a safety
 * net. Every write through it that changes what those reads return publishes an invalidation
 * event on the Redis channel, and every instance's subscriber drops the entry, so a revocation
 * or a secret rotation on one instance is obeyed by all within the channel's latency.
 *
 * Fail closed: the cache answers only while the subscription is live. When its connection
 * drops the cache is emptied and bypassed (every read goes to the store) until it is
 * subscribed again, since events sent meanwhile are lost. A read that raced an invalidation
 * (it started before the event and ended after) is returned but not kept.
 *
 * @example const store = await createCachedStore(inner, { channel, ttlMs: 30_000, maxEntries: 10_000 });
 */
import { LRUCache } from 'lru-cache';
import type { InvalidationChannel, InvalidationEvent } from './redis/invalidation.ts';
import type {
  Client,
  ClientStore,
  Owner,
  OwnerStore,
  Store,
  TokenCredential,
  TokenCredentialStore,
  TransferStore,
} from './types.ts';

export interface CachedStoreOptions {
  /** Carries invalidations between instances; the cached store owns it (close() closes it). */
  readonly channel: InvalidationChannel;
  /** Longest time an entry is served without asking the store again (default 30 s). */
  readonly ttlMs?: number | undefined;
  /** Entries per cache (clients, tokens, owners), least recently used dropped first; 0 turns caching off. */
  readonly maxEntries?: number | undefined;
  readonly now?: (() => number) | undefined;
}

export interface CacheCounts {
  readonly hits: number;
  readonly misses: number;
  readonly entries: number;
}

/** What the cache did so far, for /metrics. */
export interface CacheReport {
  readonly clients: CacheCounts;
  readonly tokens: CacheCounts;
  readonly owners: CacheCounts;
  /** False while the subscription is down: the cache is bypassed. */
  readonly live: boolean;
  /** Invalidation events received on the channel (from any instance, this one included). */
  readonly received: number;
}

/** One bounded cache with a time to live, and what it answered. */
class Lru<V extends object> {
  readonly #entries: LRUCache<string, V> | undefined;
  hits = 0;
  misses = 0;

  constructor(max: number, ttlMs: number, now: () => number) {
    // Time from the store's clock (tests inject one), read on every lookup (ttlResolution 0).
    this.#entries =
      max <= 0
        ? undefined
        : new LRUCache<string, V>({ max, ttl: ttlMs, ttlResolution: 0, perf: { now } });
  }

  get(key: string): V | undefined {
    const value = this.#entries?.get(key);
    if (value === undefined) this.misses += 1;
    else this.hits += 1;
    return value;
  }

  set(key: string, value: V): void {
    this.#entries?.set(key, value);
  }

  delete(key: string): void {
    this.#entries?.delete(key);
  }

  deleteWhere(test: (value: V) => boolean): void {
    if (this.#entries === undefined) return;
    const doomed: string[] = [];
    for (const [key, value] of this.#entries.entries()) if (test(value)) doomed.push(key);
    for (const key of doomed) this.#entries.delete(key);
  }

  clear(): void {
    this.#entries?.clear();
  }

  counts(): CacheCounts {
    return { hits: this.hits, misses: this.misses, entries: this.#entries?.size ?? 0 };
  }
}

/** The longest an entry is served without a read of the store (a net behind the channel). */
export const DEFAULT_CACHE_TTL_MS = 30_000;
/** Entries kept per cache (clients, tokens, owners each). */
export const DEFAULT_CACHE_MAX_ENTRIES = 10_000;

const reports = new WeakMap<Store, () => CacheReport>();

/** The cache's counters when `store` is a cached store, for /metrics. */
export function cacheReportOf(store: Store): CacheReport | undefined {
  return reports.get(store)?.();
}

/** The three caches of one instance, whether they may answer, and what empties them. */
class InstanceCache {
  readonly channel: InvalidationChannel;
  readonly clients: Lru<Client>;
  readonly tokens: Lru<TokenCredential>;
  readonly owners: Lru<Owner>;
  /** False while the subscription is down (or before it is up): every read goes to the store. */
  live = false;
  /** Bumped by every invalidation: a read that saw it change while it waited keeps nothing. */
  generation = 0;
  /** Invalidation events received on the channel. */
  received = 0;

  constructor(options: CachedStoreOptions) {
    this.channel = options.channel;
    const ttlMs = options.ttlMs ?? DEFAULT_CACHE_TTL_MS;
    const max = options.maxEntries ?? DEFAULT_CACHE_MAX_ENTRIES;
    const now = options.now ?? Date.now;
    this.clients = new Lru<Client>(max, ttlMs, now);
    this.tokens = new Lru<TokenCredential>(max, ttlMs, now);
    this.owners = new Lru<Owner>(max, ttlMs, now);
  }

  /** Listens on the channel; resolves once subscribed, when the cache starts answering. */
  async subscribe(): Promise<void> {
    await this.channel.subscribe(
      (event) => {
        this.received += 1;
        this.drop(event);
      },
      {
        onLost: () => {
          this.live = false;
          this.dropAll();
        },
        onGap: () => {
          this.dropAll();
          this.live = true;
        },
      },
    );
    this.live = true;
  }

  /** Forgets what one event changed. */
  drop(event: InvalidationEvent): void {
    this.generation += 1;
    switch (event.kind) {
      case 'client':
        // Removing a client removes its credentials too (ClientStore.remove).
        this.clients.delete(event.clientKey);
        this.tokens.deleteWhere((token) => token.clientKey === event.clientKey);
        break;
      case 'owner':
        // Renamed, password changed or removed (with its credentials).
        this.owners.delete(event.ownerId);
        this.tokens.deleteWhere((token) => token.ownerId === event.ownerId);
        break;
      case 'token':
        this.tokens.delete(event.token);
        break;
      case 'grant':
        this.tokens.deleteWhere(
          (token) => token.ownerId === event.ownerId && token.clientKey === event.clientKey,
        );
        break;
    }
  }

  dropAll(): void {
    this.generation += 1;
    this.clients.clear();
    this.tokens.clear();
    this.owners.clear();
  }

  /** A read through `lru`: answered from it while live, else loaded (and kept if unchanged). */
  async find<V extends object>(
    lru: Lru<V>,
    key: string,
    load: (key: string) => Promise<V | undefined>,
  ): Promise<V | undefined> {
    if (!this.live) {
      lru.misses += 1;
      return load(key);
    }
    const cached = lru.get(key);
    if (cached !== undefined) return cached;
    const seen = this.generation;
    const value = await load(key);
    // Misses are not kept: a client or token created on another instance must be found.
    if (value !== undefined && this.live && seen === this.generation) lru.set(key, value);
    return value;
  }

  /** After a write: forget locally at once, then tell every instance (ourselves included). */
  async announce<T>(result: T, event: InvalidationEvent): Promise<T> {
    this.drop(event);
    // A failure here is StoreUnavailableError: the write is saved but other instances may not
    // know yet, so the caller answers 503 and a retry announces again (writes are idempotent).
    await this.channel.publish(event);
    return result;
  }

  report(): CacheReport {
    return {
      clients: this.clients.counts(),
      tokens: this.tokens.counts(),
      owners: this.owners.counts(),
      live: this.live,
      received: this.received,
    };
  }
}

function cachedClients(inner: ClientStore, cache: InstanceCache): ClientStore {
  // Made once, not per read: find is on every verified request.
  const load = (key: string) => inner.find(key);
  return {
    ...inner,
    find: (key) => cache.find(cache.clients, key, load),
    update: async (key, changes) =>
      cache.announce(await inner.update(key, changes), { kind: 'client', clientKey: key }),
    remove: async (key) =>
      cache.announce(await inner.remove(key), { kind: 'client', clientKey: key }),
  };
}

function cachedOwners(inner: OwnerStore, cache: InstanceCache): OwnerStore {
  const load = (id: string) => inner.findById(id);
  return {
    ...inner,
    findById: (id) => cache.find(cache.owners, id, load),
    setPasswordHash: async (id, hash) =>
      cache.announce(await inner.setPasswordHash(id, hash), { kind: 'owner', ownerId: id }),
    rename: async (id, name) =>
      cache.announce(await inner.rename(id, name), { kind: 'owner', ownerId: id }),
    remove: async (id) => cache.announce(await inner.remove(id), { kind: 'owner', ownerId: id }),
  };
}

function cachedTokens(inner: TokenCredentialStore, cache: InstanceCache): TokenCredentialStore {
  const load = (token: string) => inner.find(token);
  return {
    ...inner,
    find: (token) => cache.find(cache.tokens, token, load),
    revoke: async (token, at) =>
      cache.announce(await inner.revoke(token, at), { kind: 'token', token }),
    // The old token is gone once renewed (session extension): no instance may serve it.
    renew: async (token, handleHash, at, renewed) =>
      cache.announce(await inner.renew(token, handleHash, at, renewed), { kind: 'token', token }),
    revokeGrant: async (ownerId, clientKey, at) =>
      cache.announce(await inner.revokeGrant(ownerId, clientKey, at), {
        kind: 'grant',
        ownerId,
        clientKey,
      }),
  };
}

function cachedTransfer(inner: TransferStore, cache: InstanceCache): TransferStore {
  return {
    ...inner,
    // Rows a batch replaced may be cached on any instance; new rows cannot be (misses are
    // not kept), so only replacements are announced, once the batch is committed.
    async writeBatch(keys, plan) {
      const replaced: InvalidationEvent[] = [];
      const result = await inner.writeBatch(keys, (existing) => {
        const planned = plan(existing);
        replaced.length = 0; // a retried plan starts again
        for (const client of planned.writes.replaceClients) {
          replaced.push({ kind: 'client', clientKey: client.key });
        }
        for (const token of planned.writes.replaceTokens) {
          replaced.push({ kind: 'token', token: token.token });
        }
        return planned;
      });
      for (const event of replaced) cache.drop(event);
      await Promise.all(replaced.map((event) => cache.channel.publish(event)));
      return result;
    },
  };
}

export async function createCachedStore(inner: Store, options: CachedStoreOptions): Promise<Store> {
  const cache = new InstanceCache(options);
  await cache.subscribe();
  const store: Store = {
    ...inner,
    clients: cachedClients(inner.clients, cache),
    owners: cachedOwners(inner.owners, cache),
    tokenCredentials: cachedTokens(inner.tokenCredentials, cache),
    transfer: cachedTransfer(inner.transfer, cache),
    async close() {
      cache.live = false;
      cache.dropAll();
      await cache.channel.close();
      await inner.close();
    },
  };
  reports.set(store, () => cache.report());
  return store;
}
