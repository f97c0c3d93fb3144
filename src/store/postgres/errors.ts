/**
 * Turns `pg` errors into the store's error vocabulary (src/store/types.ts). Anything that means
 * "the database cannot answer now" becomes StoreUnavailableError, so the HTTP layer answers 503
 * with Retry-After and fails closed instead of answering 500 or hanging.
 */
import { DatabaseError } from 'pg';
import { StoreConflictError, StoreUnavailableError } from '../types.ts';

/**
 * SQLSTATE classes and codes that mean the server cannot serve now: 08 connection exception,
 * 53 insufficient resources, 57 operator intervention (57014 is our statement_timeout firing,
 * 57P01–57P03 a shutdown or start-up), 58 system error, 40P01 a deadlock victim.
 */
function unavailableState(code: string): boolean {
  return ['08', '53', '57', '58'].includes(code.slice(0, 2)) || code === '40P01';
}

export function translateError(error: unknown): unknown {
  if (error instanceof StoreConflictError || error instanceof StoreUnavailableError) return error;
  if (error instanceof DatabaseError) {
    if (error.code === '23505') {
      // pg's detail holds the duplicate value; the message names only the constraint.
      return new StoreConflictError(
        `A unique key is taken (constraint ${error.constraint ?? 'unknown'}).`,
      );
    }
    if (error.code !== undefined && unavailableState(error.code)) {
      return new StoreUnavailableError('The PostgreSQL database is unavailable.', {
        cause: error,
      });
    }
    return error;
  }
  // Everything else `pg` throws is about the connection: refused, reset, a read or connect
  // timeout, a pool that has ended. None of it can be answered but with 503.
  return new StoreUnavailableError('The PostgreSQL database is unreachable.', { cause: error });
}
