/**
 * The settings of the store every command opens: where the data lives (SQLite or PostgreSQL),
 * Redis and the per-instance cache beside a shared store, and the keys sealing the secrets
 * at rest.
 */
import {
  databaseLocation,
  integer,
  optional,
  path,
  redisLocation,
  SettingProblem,
  text,
} from './config-values.ts';
import type { Setting } from './config-values.ts';
import { DEFAULT_CACHE_MAX_ENTRIES, DEFAULT_CACHE_TTL_MS } from '../../store/cached.ts';
import { keySetOf } from '../../store/key-file.ts';
import { DEFAULT_POSTGRES_SCHEMA, DEFAULT_REDIS_PREFIX } from '../../store/locations.ts';

/** `secretKey`: one or more keys; the message never repeats the value. */
function secretKeys(raw: unknown): string {
  if (typeof raw !== 'string') throw new SettingProblem('must be base64 keys');
  try {
    keySetOf(raw);
  } catch {
    throw new SettingProblem('must be 32 random bytes in base64 (openssl rand -base64 32)');
  }
  return raw;
}

export const storeSettings = {
  /**
   * Where the data lives: the path of the embedded SQLite file (its directory is created when
   * missing), or a `postgres://user:password@host:5432/database` URL for the store several
   * instances share (docs/deployment.md). Every command that reads or writes clients, users or
   * tokens uses it. A URL may hold a password: prefer the environment or the file to a flag.
   */
  database: {
    env: 'LATCHKEY_DATABASE',
    flag: '--database <path-or-url>',
    summary: 'SQLite database file, or a postgres:// URL',
    default: './data/latchkey.db',
    parse: databaseLocation,
    isPath: true,
    secret: true,
  },
  /**
   * With a PostgreSQL `database`: a `redis://` (or `rediss://`) URL. Nonces and sign-in
   * counters then live in Redis, and each instance caches clients and tokens, told of every
   * change on the other instances through a Redis channel (revocation and secret rotation are
   * obeyed everywhere within a second). Every instance and every CLI command that changes
   * clients or tokens must use the same Redis and `redisPrefix`.
   */
  redis: {
    env: 'LATCHKEY_REDIS',
    flag: '--redis <url>',
    summary: 'redis:// URL: shared nonces, counters and cache invalidation',
    default: undefined,
    parse: optional(redisLocation),
    secret: true,
  },
  /** The PostgreSQL schema holding Latchkey's tables (created by the first migration). */
  postgresSchema: {
    env: 'LATCHKEY_POSTGRES_SCHEMA',
    flag: '--postgres-schema <name>',
    summary: 'PostgreSQL schema of the tables',
    default: DEFAULT_POSTGRES_SCHEMA,
    parse: text(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, 'an SQL identifier of 1-63 characters'),
  },
  /**
   * Prefix of every Redis key and of the invalidation channel, so several deployments can
   * share one Redis. Under Redis Cluster give it a hash tag, such as `{latchkey}:`.
   */
  redisPrefix: {
    env: 'LATCHKEY_REDIS_PREFIX',
    flag: '--redis-prefix <text>',
    summary: 'prefix of the Redis keys',
    default: DEFAULT_REDIS_PREFIX,
    parse: text(/^[\x21-\x7e]{1,64}$/, 'printable ASCII without spaces, 1-64 characters'),
  },
  /**
   * With `redis`: the longest time, in seconds, an instance serves a cached client or token
   * without reading it again, a safety net behind the invalidation channel (the cache is also
   * emptied and bypassed whenever the channel's connection is lost).
   */
  cacheTtlSeconds: {
    env: 'LATCHKEY_CACHE_TTL',
    flag: '--cache-ttl <seconds>',
    summary: 'longest life of a cached client or token, seconds',
    default: DEFAULT_CACHE_TTL_MS / 1000,
    parse: integer(1, 3600),
  },
  /** With `redis`: clients, and tokens, each instance keeps cached; `0` turns the cache off. */
  cacheMaxEntries: {
    env: 'LATCHKEY_CACHE_MAX_ENTRIES',
    flag: '--cache-max-entries <count>',
    summary: 'cached clients and tokens per instance (0: no cache)',
    default: DEFAULT_CACHE_MAX_ENTRIES,
    parse: integer(0, 1_000_000),
  },
  /**
   * The key that seals client, token, temporary-credential and webhook secrets in the database
   * (AES-256-GCM, docs/security.md "Secrets at rest"): 32 random bytes in base64
   * (`openssl rand -base64 32`). Several keys may be given, separated by commas: the first
   * seals, the others are still read (a rotation across instances). Takes precedence over
   * `secretKeyFile`. No flag: a command line is visible to every user of the machine.
   */
  secretKey: {
    env: 'LATCHKEY_SECRET_KEY',
    flag: undefined,
    summary: 'key sealing the secrets at rest (base64, 32 bytes)',
    default: undefined,
    parse: optional(secretKeys),
    secret: true,
  },
  /**
   * A key file sealing the secrets at rest (JSON, written 0600; created with a new key when
   * missing; `latchkey keys rotate` adds keys to it). Unset with an SQLite database and no
   * `secretKey`: `latchkey.key` beside the database file, created on first use. Unset with
   * PostgreSQL and no `secretKey`: secrets are stored in clear, and `serve` says so.
   */
  secretKeyFile: {
    env: 'LATCHKEY_SECRET_KEY_FILE',
    flag: '--secret-key-file <path>',
    summary: 'key file sealing the secrets at rest',
    default: undefined,
    parse: optional(path),
    isPath: true,
  },
} as const satisfies Record<string, Setting<unknown>>;
