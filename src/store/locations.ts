/**
 * What a store location looks like, and the names a shared store uses by default: the one
 * home of these rules for the store opener, the PostgreSQL store and the settings catalog.
 */

/** A `postgres://` or `postgresql://` URL opens PostgreSQL; anything else is a SQLite path. */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** A `redis://` or `rediss://` URL. */
export function isRedisUrl(url: string): boolean {
  return /^rediss?:\/\//i.test(url);
}

/** The PostgreSQL schema holding Latchkey's tables. */
export const DEFAULT_POSTGRES_SCHEMA = 'latchkey';

/** The prefix of every Redis key and of the invalidation channel. */
export const DEFAULT_REDIS_PREFIX = 'latchkey:';
