/**
 * A client's use per UTC day (src/provider/clients/usage.ts counts it, in memory, per
 * instance): verified requests, failures by `oauth_problem`, the owners it acted for, its last
 * use. Written as additive batches, so the batches of several instances add up.
 */

/** One batch's counts for one client and day. */
export interface UsageCounts {
  readonly clientKey: string;
  /** The UTC day, `YYYY-MM-DD`. */
  readonly day: string;
  readonly requests: number;
  /** Failures by `oauth_problem`. */
  readonly failures: ReadonlyMap<string, number>;
  /** The owners the client acted for (owner ids), each once. */
  readonly owners: ReadonlySet<string>;
  /** The latest verified request in the batch (ms), or null when it held none. */
  readonly lastUsedAt: number | null;
}

/** A client's day as stored: every instance's batches added up. */
export interface UsageDay {
  readonly day: string;
  readonly requests: number;
  readonly failures: Readonly<Record<string, number>>;
  /** Distinct owners (exact: one row per owner and day). */
  readonly owners: number;
  readonly lastUsedAt: number | null;
}

export interface UsageStore {
  /**
   * Adds the batches: requests and failures summed, owners merged, the later last use kept.
   * Called by: the provider's upkeep and close.
   */
  add(batches: readonly UsageCounts[]): Promise<void>;
  /** The client's stored days from `fromDay` (inclusive), oldest first; days with no use absent. */
  days(clientKey: string, fromDay: string): Promise<UsageDay[]>;
  /** Deletes the days before `day`; returns how many client-days went (retention). */
  purgeBefore(day: string): Promise<number>;
}

/** Groups the rows of the three usage tables into days, oldest first. */
export function usageDays(
  totals: readonly { day: string; requests: number; lastUsedAt: number | null }[],
  failures: readonly { day: string; problem: string; count: number }[],
  owners: readonly { day: string; owners: number }[],
): UsageDay[] {
  const failuresOf = new Map<string, Record<string, number>>();
  for (const row of failures) {
    const of = failuresOf.get(row.day) ?? {};
    of[row.problem] = row.count;
    failuresOf.set(row.day, of);
  }
  const ownersOf = new Map(owners.map((row) => [row.day, row.owners]));
  return totals
    .map((row) => ({
      day: row.day,
      requests: row.requests,
      failures: failuresOf.get(row.day) ?? {},
      owners: ownersOf.get(row.day) ?? 0,
      lastUsedAt: row.lastUsedAt,
    }))
    .sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0));
}
