/** The nonces part of the store contract (RFC 5849 §3.3). */
import type { NonceKey } from '../records.ts';

export interface NonceStore {
  /**
   * Insert-if-absent: true the first time this key is seen, false for a replay. The key
   * alone decides (its timestamp included), never `expiresAt`: instances with different
   * timestamp windows, or a restart with another window, find the same entry. The entry
   * lives at least until `expiresAt` (seconds), after which the timestamp window refuses
   * the request anyway.
   * Called by: the verification step that checks the nonce (verify-request.ts, §3.3).
   */
  remember(key: NonceKey, expiresAt: number): Promise<boolean>;
  /**
   * Deletes entries that expired before `now` (seconds); returns how many.
   * Called by: provider maintain (periodic upkeep).
   */
  purgeExpired(now: number): Promise<number>;
  /**
   * Live entries, for metrics and the bounded-size check.
   * Called by: provider nonceCount (metrics).
   */
  size(): Promise<number>;
}
