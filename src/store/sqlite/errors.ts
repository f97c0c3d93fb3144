/**
 * Turns node:sqlite errors into the store's error vocabulary (src/store/types.ts), and wraps
 * the adapter's synchronous methods as the async functions the interfaces declare.
 */
import { StoreConflictError, StoreUnavailableError } from '../types.ts';

/** SQLITE_CONSTRAINT_PRIMARYKEY and SQLITE_CONSTRAINT_UNIQUE (extended result codes). */
const uniqueViolations = new Set([1555, 2067]);

/** Primary result codes that mean "the database cannot serve now": BUSY, LOCKED, IOERR, FULL, CANTOPEN. */
const unavailable = new Set([5, 6, 10, 13, 14]);

export function translateError(error: unknown): unknown {
  if (!(error instanceof Error) || !('code' in error)) return error;
  if (error.code === 'ERR_INVALID_STATE') {
    return new StoreUnavailableError('The SQLite store is closed.', { cause: error });
  }
  if (error.code !== 'ERR_SQLITE_ERROR' || !('errcode' in error)) return error;
  const code = Number(error.errcode);
  if (uniqueViolations.has(code)) {
    // The message names the table and column only, never the value.
    return new StoreConflictError(error.message, { cause: error });
  }
  if (unavailable.has(code & 0xff)) {
    return new StoreUnavailableError('The SQLite database is unavailable.', { cause: error });
  }
  return error;
}

/** An async method over a synchronous body, failing with the store's errors. */
export function method<A extends unknown[], R>(
  body: (...args: A) => R,
): (...args: A) => Promise<R> {
  return async (...args: A) => {
    try {
      return body(...args);
    } catch (error) {
      throw translateError(error);
    }
  };
}
