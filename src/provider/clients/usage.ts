/**
 * What client developers see of their app's use (docs/pages.md, `latchkey clients usage`):
 * per client and UTC day, verified protected-resource requests, failures by `oauth_problem`,
 * the distinct owners it acted for, its last use.
 *
 * Counted in memory on the hot path (a map lookup and two additions, no I/O), written to the
 * store by the provider's upkeep and on close, as last-use times are, and added to what is
 * stored (src/store/usage.ts): the counts of several instances add up. Owners are kept as ids
 * per client and day, so their count is exact (docs/decisions.md, "Usage counts").
 * Failures are counted only for a key some client has: made-up keys start no counts.
 */
import { collectParameters } from '../../protocol/index.ts';
import type { Client } from '../../store/types.ts';
import type { UsageCounts, UsageDay, UsageStore } from '../../store/usage.ts';
import type { IncomingRequest } from '../request.ts';

const DAY_MS = 86_400_000;
/** How many days of use are kept; the portal and the CLI show up to this many. */
export const USAGE_RETENTION_DAYS = 90;
/** How many days `latchkey clients usage` and the admin API show unless asked. */
export const DEFAULT_USAGE_DAYS = 30;
/** Client-days counted in memory before the next upkeep, at most; past it, the oldest go. */
const MAX_PENDING = 100_000;

interface DayCounts {
  requests: number;
  readonly failures: Map<string, number>;
  readonly owners: Set<string>;
  lastUsedAt: number | null;
}

export interface UsageMeter {
  /** A verified request (no I/O). */
  countRequest(clientKey: string, ownerId: string | undefined, at: number): void;
  /** A refused request of a client that exists; the key is read from the request. */
  countFailure(
    request: IncomingRequest,
    problem: string,
    at: number,
    clientOf: (key: string) => Promise<Client | undefined>,
  ): Promise<void>;
  /** Writes the counts held here to the store, added to what it holds. */
  flush(): Promise<void>;
  /** The client's last `days` days (today last), flushed first; a day of no use as zeros. */
  days(clientKey: string, days: number, at: number): Promise<UsageDay[]>;
  /** Deletes days older than the retention (once per cut-off day). */
  purge(at: number): Promise<number>;
}

/** The UTC day of `at`, `YYYY-MM-DD`. */
export function usageDay(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}

/** The counts held in memory until the next flush, per day and client. */
function createPendingCounts() {
  /** Per day (the current one, and any before it not yet flushed), per client. */
  const pending = new Map<string, Map<string, DayCounts>>();
  let size = 0;
  // The current day's map, found without formatting a date on every request.
  let today: Map<string, DayCounts> | undefined;
  let todayEnds = 0;

  function countsOf(clientKey: string, at: number): DayCounts {
    let day = today;
    if (day === undefined || at >= todayEnds || at < todayEnds - DAY_MS) {
      const name = usageDay(at);
      day = pending.get(name);
      if (day === undefined) {
        day = new Map();
        pending.set(name, day);
      }
      today = day;
      todayEnds = (Math.floor(at / DAY_MS) + 1) * DAY_MS;
    }
    let counts = day.get(clientKey);
    if (counts === undefined) {
      if (size >= MAX_PENDING) dropOldest();
      counts = { requests: 0, failures: new Map(), owners: new Set(), lastUsedAt: null };
      day.set(clientKey, counts);
      size += 1;
    }
    return counts;
  }

  /** Bounded memory when the store is away for long: the oldest day's counts go first. */
  function dropOldest(): void {
    const oldest = [...pending.keys()].sort()[0];
    if (oldest === undefined) return;
    size -= pending.get(oldest)?.size ?? 0;
    pending.delete(oldest);
    today = undefined;
  }

  function take(): UsageCounts[] {
    const batches: UsageCounts[] = [];
    for (const [day, clients] of pending) {
      for (const [clientKey, counts] of clients) {
        batches.push({ clientKey, day, ...counts });
      }
    }
    pending.clear();
    today = undefined;
    size = 0;
    return batches;
  }

  function putBack(batches: readonly UsageCounts[]): void {
    for (const batch of batches) {
      const counts = countsOf(batch.clientKey, Date.parse(`${batch.day}T12:00:00Z`));
      counts.requests += batch.requests;
      for (const [problem, count] of batch.failures) {
        counts.failures.set(problem, (counts.failures.get(problem) ?? 0) + count);
      }
      for (const owner of batch.owners) counts.owners.add(owner);
      if (batch.lastUsedAt !== null)
        counts.lastUsedAt = Math.max(counts.lastUsedAt ?? 0, batch.lastUsedAt);
    }
    today = undefined;
  }

  return { countsOf, take, putBack, isEmpty: () => size === 0 };
}

export function createUsageMeter(store: UsageStore): UsageMeter {
  const { countsOf, take, putBack, isEmpty } = createPendingCounts();
  let purgedBefore: string | undefined;

  async function flush(): Promise<void> {
    if (isEmpty()) return;
    const batches = take();
    try {
      await store.add(batches);
    } catch (error) {
      // Kept for the next upkeep: a store away loses no counts (bounded by MAX_PENDING).
      putBack(batches);
      throw error;
    }
  }

  return {
    countRequest(clientKey, ownerId, at) {
      const counts = countsOf(clientKey, at);
      counts.requests += 1;
      if (ownerId !== undefined) counts.owners.add(ownerId);
      counts.lastUsedAt = at;
    },

    async countFailure(request, problem, at, clientOf) {
      let key: string | undefined;
      try {
        key = collectParameters(request).protocol.get('oauth_consumer_key');
      } catch {
        return; // unreadable: no client to count it for
      }
      if (key === undefined || (await clientOf(key)) === undefined) return;
      const counts = countsOf(key, at);
      counts.failures.set(problem, (counts.failures.get(problem) ?? 0) + 1);
    },

    flush,

    async days(clientKey, days, at) {
      await flush();
      const first = Math.floor(at / DAY_MS) - (days - 1);
      const stored = new Map(
        (await store.days(clientKey, usageDay(first * DAY_MS))).map((day) => [day.day, day]),
      );
      return Array.from({ length: days }, (_, index) => {
        const day = usageDay((first + index) * DAY_MS);
        return stored.get(day) ?? { day, requests: 0, failures: {}, owners: 0, lastUsedAt: null };
      });
    },

    async purge(at) {
      // The cut-off moves once a day: one purge per day per instance, not one per upkeep.
      const before = usageDay(at - USAGE_RETENTION_DAYS * DAY_MS);
      if (before === purgedBefore) return 0;
      const purged = await store.purgeBefore(before);
      purgedBefore = before;
      return purged;
    },
  };
}
