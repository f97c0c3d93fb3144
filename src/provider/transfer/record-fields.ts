/**
 * Reading one field of a transfer record (records.ts), by its type; a wrong value throws
 * InputError naming the field.
 */
import { InputError } from '../input-error.ts';
import { checkSubject } from '../accounts/owners.ts';
import type { OwnerReference } from './records.ts';

/** ISO 8601 with a date, a time and an offset (Z or ±hh:mm); fractions of a second allowed. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
/** Past this a number of seconds is in the year 5138: it is milliseconds, given by mistake. */
const MAX_SECONDS = 1e11;

export type Fields = Readonly<Record<string, unknown>>;

export function text(record: Fields, name: string, required: true): string;
export function text(record: Fields, name: string, required: false): string | undefined;
export function text(record: Fields, name: string, required: boolean): string | undefined {
  const value = record[name];
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string') {
    throw new InputError(name, required ? `${name} is required (text).` : `${name} must be text.`);
  }
  return value;
}

export function nullableText(record: Fields, name: string): string | null | undefined {
  return record[name] === null ? null : text(record, name, false);
}

export function flag(record: Fields, name: string): boolean | undefined {
  const value = record[name];
  if (value !== undefined && typeof value !== 'boolean') {
    throw new InputError(name, `${name} must be true or false.`);
  }
  return value;
}

export function list(record: Fields, name: string): string[] | undefined {
  const value = record[name];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw new InputError(name, `${name} must be a list of texts.`);
  }
  return value;
}

/** A time: an ISO 8601 text with an offset, or a number of seconds since the epoch. */
export function parseTime(value: unknown, name: string): number {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0 || value >= MAX_SECONDS) {
      throw new InputError(
        name,
        `${name} must be seconds since 1970 (this looks like milliseconds), or an ISO 8601 time.`,
      );
    }
    return Math.round(value * 1000);
  }
  if (typeof value === 'string' && ISO_TIME.test(value)) {
    const ms = Date.parse(value);
    if (Number.isFinite(ms)) return ms;
  }
  throw new InputError(name, `${name} must be an ISO 8601 time such as 2024-05-01T12:00:00Z.`);
}

export function time(record: Fields, name: string): number | undefined {
  return record[name] === undefined ? undefined : parseTime(record[name], name);
}

export function nullableTime(record: Fields, name: string): number | null | undefined {
  return record[name] === null ? null : time(record, name);
}

export function owner(record: Fields, name: string): OwnerReference {
  const value = record[name];
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const fields = value as Fields;
    const names = Object.keys(fields).sort().join(',');
    if (names === 'username' && typeof fields.username === 'string' && fields.username !== '') {
      return { username: fields.username };
    }
    const subject = fields.subject;
    if (typeof subject === 'string') checkSubject(subject);
    if (names === 'issuer,source,subject' && fields.source === 'oidc') {
      if (typeof fields.issuer === 'string' && fields.issuer !== '') {
        return { source: 'oidc', issuer: fields.issuer, subject: subject as string };
      }
    }
    if (names === 'source,subject' && fields.source === 'delegated') {
      return { source: 'delegated', issuer: null, subject: subject as string };
    }
  }
  throw new InputError(
    name,
    `${name} must be {"username": "…"} (a local account), {"source": "oidc", "issuer": "…", "subject": "…"} or {"source": "delegated", "subject": "…"}.`,
  );
}

export function checkKnownFields(record: Fields, known: ReadonlySet<string>): void {
  for (const name of Object.keys(record)) {
    if (!known.has(name)) throw new InputError(name, `Unknown field "${name.slice(0, 40)}".`);
  }
}
