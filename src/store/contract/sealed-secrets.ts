/** The secrets-at-rest part of the store contract. */

/**
 * Secrets at rest (src/store/sealing.ts): which keys the stored secrets of clients, temporary
 * and token credentials are sealed under, and re-sealing them under the current key (after a
 * key is first configured, or rotated). Used by `latchkey keys` and at start-up.
 */
export interface SealedSecretStore {
  /** Rows per key id over the sealed tables (sealed-tables.ts); '' counts the secrets stored in clear. */
  countByKey(): Promise<Map<string, number>>;
  /**
   * Re-seals, under the current key, every secret that is in clear or under another key, in
   * batches of `batchSize` rows (each its own short transaction, so the store keeps serving);
   * a row changed meanwhile is left to its writer. Returns how many it re-sealed; 0 without a
   * current key.
   */
  reseal(options?: { readonly batchSize?: number }): Promise<number>;
  /**
   * How a verifier is stored: keyed with the current sealing key (HMAC-SHA256), or its
   * SHA-256 without one (src/store/sealing.ts verifierDigestWith).
   * Called by: provider/flow/authorization.ts (approve).
   */
  verifierDigest(verifier: string): string;
  /**
   * Whether `verifier` is the one `stored` was made from (under any configured key, or an
   * unkeyed digest), in constant time.
   * Called by: provider/flow/token-credentials.ts (§2.3).
   */
  verifierMatches(verifier: string, stored: string): boolean;
}
