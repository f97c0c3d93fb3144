/** The store's two errors, which every adapter translates its driver's errors into. */

/** A unique key or username is taken. */
export class StoreConflictError extends Error {
  override readonly name = 'StoreConflictError';
}

/**
 * The backing service cannot be reached, or cannot serve a row now (SealedValueError, a
 * secret sealed under a key not configured); callers answer 503 with Retry-After, fail closed.
 */
export class StoreUnavailableError extends Error {
  override readonly name: string = 'StoreUnavailableError';
}
