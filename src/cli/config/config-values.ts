/**
 * The value kinds of config.ts: each parser takes a raw value (a string from a flag or the
 * environment, any JSON value from the config file) and returns the typed value or throws
 * SettingProblem saying what was expected; the caller adds which setting and what it got and
 * raises ConfigError.
 */
import { isPostgresUrl, isRedisUrl } from '../../store/locations.ts';

/** One entry of the settings table. */
export interface Setting<T> {
  /** The environment variable. */
  readonly env: `LATCHKEY_${string}`;
  /** The `latchkey serve` flag in commander syntax (`--port <number>`), or none. */
  readonly flag: string | undefined;
  /** One line for `--help`. */
  readonly summary: string;
  readonly default: T;
  readonly parse: (raw: unknown) => T;
  /** A file path: relative paths in the config file are taken from the file's folder. */
  readonly isPath?: boolean;
  /** Never echo the value in a message. */
  readonly secret?: boolean;
  /**
   * The name the setting had before, still read (its flag, variable and file key) with a
   * warning at start-up, so configurations written for it keep working.
   */
  readonly formerly?: FormerName;
}

/** A setting's former spellings: read as the setting's own, each use warned of. */
export interface FormerName {
  /** The config file key. */
  readonly name: string;
  readonly env: `LATCHKEY_${string}`;
  /** The flag in commander syntax, or none. */
  readonly flag: string | undefined;
}

/** Raised at start-up when a setting is wrong; the message names the setting as it was given. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  /** The setting at fault (`port`, `paths.authorize`…), or undefined for the file itself. */
  readonly setting: string | undefined;
  /** Where the bad value came from. */
  readonly origin: 'flag' | 'env' | 'file' | 'default';

  constructor(setting: string | undefined, origin: ConfigError['origin'], message: string) {
    super(message);
    this.setting = setting;
    this.origin = origin;
  }
}

/** What a value should have been ("must be an integer 0-65535"). */
export class SettingProblem extends Error {
  override readonly name = 'SettingProblem';
}

export function integer(min: number, max: number): (raw: unknown) => number {
  return (raw) => {
    const value =
      typeof raw === 'number'
        ? raw
        : typeof raw === 'string' && /^\s*-?\d+\s*$/.test(raw)
          ? Number(raw)
          : NaN;
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      throw new SettingProblem(`must be an integer ${min}-${max}`);
    }
    return value;
  };
}

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off']);

export function boolean(raw: unknown): boolean {
  if (typeof raw === 'boolean') return raw;
  const word = typeof raw === 'string' ? raw.trim().toLowerCase() : undefined;
  if (word !== undefined && TRUE.has(word)) return true;
  if (word !== undefined && FALSE.has(word)) return false;
  throw new SettingProblem('must be true or false');
}

function string(raw: unknown): string {
  if (typeof raw !== 'string') throw new SettingProblem('must be a string');
  return raw;
}

export function text(
  shape: RegExp,
  described: string,
  forbidden?: RegExp,
): (raw: unknown) => string {
  return (raw) => {
    const value = string(raw);
    if (!shape.test(value) || (forbidden !== undefined && forbidden.test(value))) {
      throw new SettingProblem(
        `must be ${described}${forbidden ? ` without ${forbidden.source}` : ''}`,
      );
    }
    return value;
  };
}

export function hostName(raw: unknown): string {
  const value = string(raw).trim();
  if (!/^[A-Za-z0-9.:%[\]-]{1,253}$/.test(value)) {
    throw new SettingProblem('must be a host name or IP address');
  }
  return value;
}

export function path(raw: unknown): string {
  const value = string(raw);
  if (value.trim() === '' || value.includes('\0')) throw new SettingProblem('must be a file path');
  return value;
}

/** A URL the predicate accepts; the message never repeats it (it may hold a password). */
function serviceUrl(value: string, accepts: (url: string) => boolean, expected: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new SettingProblem(`must be ${expected}`);
  }
  if (!accepts(value) || url.hostname === '') throw new SettingProblem(`must be ${expected}`);
  return value;
}

/** A SQLite file path, or a `postgres://` / `postgresql://` URL. */
export function databaseLocation(raw: unknown): string {
  const value = path(raw);
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return value;
  return serviceUrl(value, isPostgresUrl, 'a SQLite file path or a postgres:// URL');
}

/** A `redis://` or `rediss://` URL. */
export function redisLocation(raw: unknown): string {
  return serviceUrl(string(raw), isRedisUrl, 'a redis:// or rediss:// URL');
}

export function urlPath(raw: unknown): string {
  const value = string(raw);
  if (!/^\/[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*$/.test(value)) {
    throw new SettingProblem('must be a URL path starting with / (no query or fragment)');
  }
  return value;
}

export function httpUrl(raw: unknown): string {
  const value = string(raw);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new SettingProblem('must be an absolute http or https URL');
  }
  if (!/^https?:$/.test(url.protocol) || url.search !== '' || url.hash !== '') {
    throw new SettingProblem('must be an absolute http or https URL without query or fragment');
  }
  return value.replace(/\/+$/, '');
}

export function enumeration<const T extends string>(choices: readonly T[]): (raw: unknown) => T {
  return (raw) => {
    const value = typeof raw === 'string' ? raw.trim().toLowerCase() : raw;
    const found = choices.find((choice) => choice === value);
    if (found === undefined) throw new SettingProblem(`must be one of ${choices.join(', ')}`);
    return found;
  };
}

/** A list from an array or a comma-separated string, each item one of `known`, no repeats. */
export function list(known: readonly string[]): (raw: unknown) => string[] {
  return (raw) => {
    const items = Array.isArray(raw)
      ? raw
      : typeof raw === 'string'
        ? raw.split(',').map((item) => item.trim())
        : undefined;
    const expected = `a comma-separated list of ${known.join(', ')}`;
    if (items === undefined || items.length === 0) throw new SettingProblem(`must be ${expected}`);
    const seen = new Set<string>();
    for (const item of items) {
      if (typeof item !== 'string' || !known.includes(item)) {
        throw new SettingProblem(`must be ${expected}`);
      }
      if (seen.has(item)) throw new SettingProblem(`names ${item} twice`);
      seen.add(item);
    }
    return [...seen];
  };
}

/** An optional setting: `none` or null (from the file) mean unset. */
export function optional<T>(parse: (raw: unknown) => T): (raw: unknown) => T | undefined {
  return (raw) => (raw === null || raw === 'none' ? undefined : parse(raw));
}

/** A raw value as a message shows it: JSON, cut to 60 characters. */
export function show(raw: unknown): string {
  const text = JSON.stringify(raw) ?? String(raw);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
