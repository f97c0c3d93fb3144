/** The sign-in throttling part of the store contract. */

/** Counters for login throttling: hits within a window per key (account or address). */
export interface AttemptStore {
  /**
   * Adds one hit for `key` and returns the hits within the window ending at `now`.
   * Called by: provider/accounts/sign-in-throttle.ts allow (password sign-in).
   */
  hit(key: string, now: number, windowMs: number): Promise<number>;
  /** Called by: provider/accounts/sign-in-throttle.ts clear (a successful sign-in). */
  reset(key: string): Promise<void>;
}
