/**
 * The credential transfer format (`latchkey import` / `latchkey export`, docs/import.md): one
 * JSON object per record, a client or a token credential, with the fields an operator moving
 * from another provider has. Parsing checks every field by the rules registration and
 * issuing use, and names the field at fault (InputError); references (a token's client and
 * owner, a client's developer) are resolved later, against the file and the store.
 */
import type { SignatureMethodRegistry } from '../../protocol/index.ts';
import { checkClientFields } from '../client-fields.ts';
import { checkIdentifier, checkSecret } from '../credential-values.ts';
import { InputError } from '../input-error.ts';
import { checkSubject } from '../owners.ts';
import type { Policy } from '../policy.ts';
import { checkRequestedScope } from '../scope.ts';

/**
 * A resource owner as a record names it: a local account by its username, or an owner from an
 * identity source by its source, issuer (OpenID Connect only) and subject (docs/identity.md).
 */
export type OwnerReference =
  | { readonly username: string }
  | {
      readonly source: 'oidc' | 'delegated';
      readonly issuer: string | null;
      readonly subject: string;
    };

/** One text per owner, for maps: the username, or source, issuer and subject. */
export function ownerKey(reference: OwnerReference): string {
  return 'username' in reference
    ? `local\n${reference.username}`
    : `${reference.source}\n${reference.issuer ?? ''}\n${reference.subject}`;
}

/** How messages name an owner. */
export function ownerLabel(reference: OwnerReference): string {
  return 'username' in reference
    ? `local user "${reference.username}"`
    : `${reference.source} owner "${reference.subject}"`;
}

export interface ClientRecord {
  readonly kind: 'client';
  readonly key: string;
  /** null: no shared secret (RSA only); undefined: not in the record (left as stored). */
  readonly secret: string | null | undefined;
  readonly name: string;
  readonly description: string | undefined;
  readonly website: string | null | undefined;
  readonly callbacks: readonly string[] | undefined;
  readonly signatureMethods: readonly string[] | undefined;
  readonly rsaPublicKey: string | null | undefined;
  readonly constrainedDevice: boolean | undefined;
  readonly verified: boolean | undefined;
  readonly disabled: boolean | undefined;
  readonly developer: OwnerReference | null | undefined;
  /** Milliseconds since the epoch. */
  readonly createdAt: number | undefined;
}

export interface TokenRecord {
  readonly kind: 'token';
  readonly token: string;
  readonly secret: string | undefined;
  readonly client: string;
  readonly owner: OwnerReference;
  readonly scope: string | undefined;
  readonly issuedAt: number | undefined;
  readonly expiresAt: number | null | undefined;
  readonly lastUsedAt: number | null | undefined;
  readonly revokedAt: number | null | undefined;
}

export type TransferRecord = ClientRecord | TokenRecord;

const CLIENT_FIELDS = new Set([
  'kind',
  'key',
  'secret',
  'name',
  'description',
  'website',
  'callbacks',
  'signatureMethods',
  'rsaPublicKey',
  'constrainedDevice',
  'verified',
  'disabled',
  'developer',
  'createdAt',
]);
const TOKEN_FIELDS = new Set([
  'kind',
  'token',
  'secret',
  'client',
  'owner',
  'scope',
  'issuedAt',
  'expiresAt',
  'lastUsedAt',
  'revokedAt',
]);

/** ISO 8601 with a date, a time and an offset (Z or ±hh:mm); fractions of a second allowed. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
/** Past this a number of seconds is in the year 5138: it is milliseconds, given by mistake. */
const MAX_SECONDS = 1e11;

type Fields = Readonly<Record<string, unknown>>;

function text(record: Fields, name: string, required: true): string;
function text(record: Fields, name: string, required: false): string | undefined;
function text(record: Fields, name: string, required: boolean): string | undefined {
  const value = record[name];
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string') {
    throw new InputError(name, required ? `${name} is required (text).` : `${name} must be text.`);
  }
  return value;
}

function nullableText(record: Fields, name: string): string | null | undefined {
  return record[name] === null ? null : text(record, name, false);
}

function flag(record: Fields, name: string): boolean | undefined {
  const value = record[name];
  if (value !== undefined && typeof value !== 'boolean') {
    throw new InputError(name, `${name} must be true or false.`);
  }
  return value;
}

function list(record: Fields, name: string): string[] | undefined {
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

function time(record: Fields, name: string): number | undefined {
  return record[name] === undefined ? undefined : parseTime(record[name], name);
}

function nullableTime(record: Fields, name: string): number | null | undefined {
  return record[name] === null ? null : time(record, name);
}

function owner(record: Fields, name: string): OwnerReference {
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

function checkKnownFields(record: Fields, known: ReadonlySet<string>): void {
  for (const name of Object.keys(record)) {
    if (!known.has(name)) throw new InputError(name, `Unknown field "${name.slice(0, 40)}".`);
  }
}

function parseClient(record: Fields, methods: SignatureMethodRegistry): ClientRecord {
  checkKnownFields(record, CLIENT_FIELDS);
  const key = text(record, 'key', true);
  checkIdentifier('key', 'A client key', key);
  const secret = nullableText(record, 'secret');
  if (typeof secret === 'string') checkSecret('secret', 'A client secret', secret);
  const parsed: ClientRecord = {
    kind: 'client',
    key,
    secret,
    name: text(record, 'name', true).trim(),
    description: text(record, 'description', false),
    website: nullableText(record, 'website'),
    callbacks: list(record, 'callbacks'),
    signatureMethods: list(record, 'signatureMethods'),
    rsaPublicKey: nullableText(record, 'rsaPublicKey'),
    constrainedDevice: flag(record, 'constrainedDevice'),
    verified: flag(record, 'verified'),
    disabled: flag(record, 'disabled'),
    developer:
      record.developer === null || record.developer === undefined
        ? (record.developer as null | undefined)
        : owner(record, 'developer'),
    createdAt: time(record, 'createdAt'),
  };
  checkClientFields(
    {
      name: parsed.name,
      description: parsed.description,
      website: parsed.website ?? undefined,
      callbacks: parsed.callbacks,
      signatureMethods: parsed.signatureMethods,
      rsaPublicKey: parsed.rsaPublicKey ?? undefined,
    },
    methods,
  );
  return parsed;
}

function parseToken(record: Fields, policy: Policy): TokenRecord {
  checkKnownFields(record, TOKEN_FIELDS);
  const token = text(record, 'token', true);
  checkIdentifier('token', 'A token', token);
  const secret = text(record, 'secret', false);
  if (secret !== undefined) checkSecret('secret', 'A token secret', secret);
  const client = text(record, 'client', true);
  checkIdentifier('client', 'A client key', client);
  let scope = text(record, 'scope', false);
  if (scope !== undefined && scope.trim() !== '') {
    try {
      scope = checkRequestedScope(scope, policy);
    } catch (error) {
      throw new InputError('scope', error instanceof Error ? error.message : 'Unknown scope.');
    }
  }
  return {
    kind: 'token',
    token,
    secret,
    client,
    owner: owner(record, 'owner'),
    // '' is a grant of no scope (the owner unticked everything), kept as it is.
    scope: scope === undefined ? undefined : scope.trim() === '' ? '' : scope,
    issuedAt: time(record, 'issuedAt'),
    expiresAt: nullableTime(record, 'expiresAt'),
    lastUsedAt: nullableTime(record, 'lastUsedAt'),
    revokedAt: nullableTime(record, 'revokedAt'),
  };
}

/** One record from its parsed JSON; throws InputError naming the field at fault. */
export function parseRecord(value: unknown, policy: Policy): TransferRecord {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InputError('kind', 'A record is a JSON object.');
  }
  const record = value as Fields;
  switch (record.kind) {
    case 'client':
      return parseClient(record, policy.signatureMethods);
    case 'token':
      return parseToken(record, policy);
    default:
      throw new InputError('kind', 'kind must be "client" or "token".');
  }
}
