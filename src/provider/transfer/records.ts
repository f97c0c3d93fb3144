/**
 * The credential transfer format (`latchkey import` / `latchkey export`, docs/import.md): one
 * JSON object per record, an owner, a client or a token credential, with the fields an
 * operator moving from another provider has. Parsing checks every field by the rules registration and
 * issuing use, and names the field at fault (InputError); references (a token's client and
 * owner, a client's developer) are resolved later, against the file and the store.
 */
import { checkClientFields, isRememberConsent } from '../clients/client-fields.ts';
import { checkIdentifier, checkSecret } from '../clients/credential-values.ts';
import { InputError } from '../input-error.ts';
import { checkSubject, checkUsername, cleanName } from '../accounts/owners.ts';
import { isPasswordHash } from '../accounts/passwords.ts';
import {
  checkKnownFields,
  flag,
  list,
  nullableText,
  nullableTime,
  owner,
  text,
  time,
} from './record-fields.ts';
import type { Fields } from './record-fields.ts';
export { parseTime } from './record-fields.ts';
import type { Policy } from '../policy.ts';
import type { RememberConsent } from '../../store/types.ts';
import { checkRequestedScope, checkScopeCeiling } from '../scope.ts';
import { deviceHintOf } from '../flow/device-hint.ts';

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

/**
 * A resource owner with its id, so an import keeps the subject an API knows it by (a local
 * owner's subject is its id; docs/identity.md).
 */
export interface OwnerRecord {
  readonly kind: 'owner';
  readonly id: string;
  readonly source: 'local' | 'oidc' | 'delegated';
  readonly issuer: string | null;
  readonly subject: string;
  readonly name: string;
  readonly username: string | null;
  /** The scrypt hash (passwords.ts); null: no password; undefined: not in the record. */
  readonly passwordHash: string | null | undefined;
  readonly createdAt: number | undefined;
}

/** How records refer to the owner this record is (records name owners by reference). */
export function referenceOf(record: OwnerRecord): OwnerReference {
  return record.source === 'local'
    ? { username: record.username! }
    : { source: record.source, issuer: record.issuer, subject: record.subject };
}

export interface ClientRecord {
  readonly kind: 'client';
  readonly key: string;
  /** null: no shared secret (public-key methods only); undefined: not in the record (left as stored). */
  readonly secret: string | null | undefined;
  readonly name: string;
  readonly description: string | undefined;
  readonly website: string | null | undefined;
  readonly callbacks: readonly string[] | undefined;
  readonly signatureMethods: readonly string[] | undefined;
  /** Read from `publicKey`, or `rsaPublicKey` as files exported before named it. */
  readonly publicKey: string | null | undefined;
  readonly constrainedDevice: boolean | undefined;
  readonly verified: boolean | undefined;
  readonly disabled: boolean | undefined;
  readonly sessionExtension: boolean | undefined;
  readonly rememberConsent: RememberConsent | undefined;
  readonly tokenResponseIdentity: boolean | undefined;
  /** Its scope ceiling; undefined (files from before ceilings): none for a new client. */
  readonly scopes: readonly string[] | undefined;
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
  /** The User-Agent of its first verified request (cleaned as when it was recorded), or null. */
  readonly deviceHint: string | null | undefined;
  readonly revokedAt: number | null | undefined;
  /** Session extension: SHA-256 (hex) of the session handle; null for a token without one. */
  readonly sessionHandleHash: string | null | undefined;
  readonly sessionExpiresAt: number | null | undefined;
}

export type TransferRecord = OwnerRecord | ClientRecord | TokenRecord;

const OWNER_FIELDS = new Set([
  'kind',
  'id',
  'source',
  'issuer',
  'subject',
  'name',
  'username',
  'passwordHash',
  'createdAt',
]);

const CLIENT_FIELDS = new Set([
  'kind',
  'key',
  'secret',
  'name',
  'description',
  'website',
  'callbacks',
  'signatureMethods',
  'publicKey',
  'rsaPublicKey',
  'constrainedDevice',
  'verified',
  'disabled',
  'sessionExtension',
  'rememberConsent',
  'tokenResponseIdentity',
  'scopes',
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
  'deviceHint',
  'revokedAt',
  'sessionHandleHash',
  'sessionExpiresAt',
]);
const HANDLE_HASH = /^[0-9a-f]{64}$/;

function parseOwner(record: Fields): OwnerRecord {
  checkKnownFields(record, OWNER_FIELDS);
  const id = text(record, 'id', true);
  checkIdentifier('id', 'An owner id', id);
  const source = record.source;
  if (source !== 'local' && source !== 'oidc' && source !== 'delegated') {
    throw new InputError('source', 'source must be "local", "oidc" or "delegated".');
  }
  const subject = text(record, 'subject', true);
  checkSubject(subject);
  const issuer = nullableText(record, 'issuer') ?? null;
  if ((source === 'oidc') !== (issuer !== null && issuer !== '')) {
    throw new InputError(
      'issuer',
      'issuer is the OpenID Connect issuer of an oidc owner, null for the others.',
    );
  }
  const username = nullableText(record, 'username') ?? null;
  if (source === 'local') {
    if (username === null) throw new InputError('username', 'A local owner has a username.');
    checkUsername(username);
  } else if (username !== null) {
    throw new InputError('username', 'Only a local owner has a username (null for the others).');
  }
  const passwordHash = nullableText(record, 'passwordHash');
  if (typeof passwordHash === 'string') {
    if (source !== 'local') {
      throw new InputError(
        'passwordHash',
        'Only a local owner has a password (null for the others).',
      );
    }
    if (!isPasswordHash(passwordHash)) {
      throw new InputError(
        'passwordHash',
        'passwordHash is a Latchkey password hash (scrypt$N$r$p$salt$hash), as `latchkey export --include-secrets` writes it.',
      );
    }
  }
  const name = text(record, 'name', true);
  return {
    kind: 'owner',
    id,
    source,
    issuer,
    subject,
    name: cleanName(name, username ?? subject),
    username,
    passwordHash,
    createdAt: time(record, 'createdAt'),
  };
}

/** `publicKey`, or its former name `rsaPublicKey` in files exported before; not both. */
function publicKeyOf(record: Fields): string | null | undefined {
  if (record.publicKey !== undefined && record.rsaPublicKey !== undefined) {
    throw new InputError('publicKey', 'Give publicKey or its former name rsaPublicKey, not both.');
  }
  return record.publicKey !== undefined
    ? nullableText(record, 'publicKey')
    : nullableText(record, 'rsaPublicKey');
}

function rememberConsentOf(value: unknown): RememberConsent | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !isRememberConsent(value)) {
    throw new InputError('rememberConsent', 'rememberConsent must be "never" or "same-scope".');
  }
  return value;
}

/** A client's scope ceiling: scopes this server knows (an import from elsewhere may not). */
function ceilingOf(scopes: string[] | undefined, policy: Policy): string[] | undefined {
  return scopes === undefined ? undefined : checkScopeCeiling(scopes, policy);
}

function parseClient(record: Fields, policy: Policy): ClientRecord {
  const methods = policy.signatureMethods;
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
    publicKey: publicKeyOf(record),
    constrainedDevice: flag(record, 'constrainedDevice'),
    verified: flag(record, 'verified'),
    disabled: flag(record, 'disabled'),
    sessionExtension: flag(record, 'sessionExtension'),
    rememberConsent: rememberConsentOf(record.rememberConsent),
    tokenResponseIdentity: flag(record, 'tokenResponseIdentity'),
    scopes: ceilingOf(list(record, 'scopes'), policy),
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
      publicKey: parsed.publicKey ?? undefined,
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
  const sessionHandleHash = nullableText(record, 'sessionHandleHash');
  if (typeof sessionHandleHash === 'string' && !HANDLE_HASH.test(sessionHandleHash)) {
    throw new InputError(
      'sessionHandleHash',
      'sessionHandleHash is the SHA-256 of the session handle, 64 lowercase hex digits.',
    );
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
    deviceHint: deviceHintField(record),
    revokedAt: nullableTime(record, 'revokedAt'),
    sessionHandleHash,
    sessionExpiresAt: nullableTime(record, 'sessionExpiresAt'),
  };
}

/** `deviceHint`: cleaned and cut as a recorded one is (flow/device-hint.ts); '' is none. */
function deviceHintField(record: Fields): string | null | undefined {
  const value = nullableText(record, 'deviceHint');
  return typeof value === 'string' ? (deviceHintOf(value) ?? null) : value;
}

/** One record from its parsed JSON; throws InputError naming the field at fault. */
export function parseRecord(value: unknown, policy: Policy): TransferRecord {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InputError('kind', 'A record is a JSON object.');
  }
  const record = value as Fields;
  switch (record.kind) {
    case 'owner':
      return parseOwner(record);
    case 'client':
      return parseClient(record, policy);
    case 'token':
      return parseToken(record, policy);
    default:
      throw new InputError('kind', 'kind must be "owner", "client" or "token".');
  }
}
