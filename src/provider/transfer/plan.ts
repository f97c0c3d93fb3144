/**
 * What importing one record does to the store, decided against the row stored under its key:
 * create it, leave it (the same credential), update it, or report a conflict (a different
 * credential under the same key, overwritten only with `--update`). Pure: the store's batch
 * runs these inside its transaction.
 *
 * Identity fields are compared (secrets, client, owner, scope, expiry, what a client
 * registered); bookkeeping is merged instead, forward only: a revocation is kept and never
 * undone, the last use is the later of the two. Creation and issue times are not compared
 * (a client registered by hand before the import is still the same client).
 */
import type { Client, Owner, TokenCredential } from '../../store/types.ts';
import type { SignatureMethodRegistry } from '../../protocol/index.ts';
import { checkKeyMaterial, publicKeyOnly } from '../clients/client-fields.ts';
import { InputError } from '../input-error.ts';
import type { ClientRecord, OwnerRecord, TokenRecord } from './records.ts';

export type Outcome = 'created' | 'updated' | 'unchanged' | 'conflict' | 'error';

export interface Decision<Row> {
  readonly outcome: Outcome;
  /** The row to write, for created and updated. */
  readonly row?: Row | undefined;
  /** Fields that differ (conflict, update), or the error's message. */
  readonly detail?: string | undefined;
}

/** Given fields of `record` that differ from `stored`, by their record names. */
function differences(pairs: ReadonlyArray<[string, unknown, unknown]>): string[] {
  return pairs
    .filter(([, given, stored]) => given !== undefined && !same(given, stored))
    .map(([name]) => name);
}

function same(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => item === b[i]);
  }
  return a === b;
}

/**
 * An owner record against the owner stored under its id (or, for one from an identity
 * source, under its source, issuer and subject). Who the owner is (id, source, issuer,
 * subject, username) was checked before (import.ts resolve: a clash is a problem, nothing
 * is written); what may differ is the display name and the password.
 */
export function planOwner(
  record: OwnerRecord,
  stored: Owner | undefined,
  update: boolean,
  now: number,
): Decision<Owner> {
  if (stored === undefined) {
    return {
      outcome: 'created',
      row: {
        id: record.id,
        source: record.source,
        issuer: record.issuer,
        subject: record.subject,
        name: record.name,
        username: record.username,
        passwordHash: record.passwordHash ?? null,
        createdAt: record.createdAt ?? now,
      },
    };
  }
  // A record without a password (null) never takes one away: there is no password to compare.
  const passwordHash = record.passwordHash ?? undefined;
  const changed = differences([
    ['name', record.name, stored.name],
    ['passwordHash', passwordHash, stored.passwordHash],
  ]);
  if (changed.length === 0) return { outcome: 'unchanged' };
  if (!update) return { outcome: 'conflict', detail: changed.join(', ') };
  return {
    outcome: 'updated',
    row: {
      ...stored,
      name: record.name,
      passwordHash: passwordHash ?? stored.passwordHash,
    },
    detail: changed.join(', '),
  };
}

/** Every field the record gives, over `base`. */
function clientRow(
  record: ClientRecord,
  base: Client,
  developerId: string | null | undefined,
  methods: SignatureMethodRegistry,
) {
  const row: Client = {
    key: record.key,
    secret: record.secret === undefined ? base.secret : (record.secret ?? ''),
    name: record.name,
    description: record.description ?? base.description,
    website: record.website === undefined ? base.website : record.website || null,
    callbacks: record.callbacks ?? base.callbacks,
    signatureMethods: record.signatureMethods ?? base.signatureMethods,
    publicKey: record.publicKey === undefined ? base.publicKey : record.publicKey || null,
    constrainedDevice: record.constrainedDevice ?? base.constrainedDevice,
    verified: record.verified ?? base.verified,
    disabled: record.disabled ?? base.disabled,
    sessionExtension: record.sessionExtension ?? base.sessionExtension,
    rememberConsent: record.rememberConsent ?? base.rememberConsent,
    tokenResponseIdentity: record.tokenResponseIdentity ?? base.tokenResponseIdentity,
    scopes: record.scopes ?? base.scopes,
    // Rate limits are the operator's setting on this server: not carried by a transfer.
    requestsPerMinute: base.requestsPerMinute,
    failuresPerMinute: base.failuresPerMinute,
    developerId: developerId === undefined ? base.developerId : developerId,
    createdAt: record.createdAt ?? base.createdAt,
  };
  checkKeyMaterial(row, methods);
  return row;
}

function withCheckedKeys<Row>(build: () => Row, outcome: 'created' | 'updated', detail?: string) {
  try {
    return { outcome, row: build(), detail } satisfies Decision<Row>;
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    return { outcome: 'error', detail: error.message } satisfies Decision<Row>;
  }
}

export function planClient(
  record: ClientRecord,
  stored: Client | undefined,
  developerId: string | null | undefined,
  update: boolean,
  now: number,
  methods: SignatureMethodRegistry,
): Decision<Client> {
  if (stored === undefined) {
    if (record.secret === undefined && !publicKeyOnly(record.signatureMethods ?? [], methods)) {
      return {
        outcome: 'error',
        detail:
          'A new client needs its secret (export with --include-secrets), or null to sign with its public key only.',
      };
    }
    const blank: Client = {
      key: record.key,
      secret: '',
      name: record.name,
      description: '',
      website: null,
      callbacks: [],
      signatureMethods: [],
      publicKey: null,
      constrainedDevice: false,
      verified: false,
      disabled: false,
      sessionExtension: false,
      rememberConsent: 'never',
      tokenResponseIdentity: false,
      scopes: [],
      requestsPerMinute: null,
      failuresPerMinute: null,
      developerId: null,
      createdAt: now,
    };
    return withCheckedKeys(() => clientRow(record, blank, developerId, methods), 'created');
  }
  const changed = differences([
    ['secret', record.secret === null ? '' : record.secret, stored.secret],
    ['name', record.name, stored.name],
    ['description', record.description, stored.description],
    ['website', record.website === undefined ? undefined : record.website || null, stored.website],
    ['callbacks', record.callbacks, stored.callbacks],
    ['signatureMethods', record.signatureMethods, stored.signatureMethods],
    [
      'publicKey',
      record.publicKey === undefined ? undefined : record.publicKey || null,
      stored.publicKey,
    ],
    ['constrainedDevice', record.constrainedDevice, stored.constrainedDevice],
    ['verified', record.verified, stored.verified],
    ['disabled', record.disabled, stored.disabled],
    ['sessionExtension', record.sessionExtension, stored.sessionExtension],
    ['rememberConsent', record.rememberConsent, stored.rememberConsent],
    ['tokenResponseIdentity', record.tokenResponseIdentity, stored.tokenResponseIdentity],
    ['scopes', record.scopes, stored.scopes],
    ['developer', developerId, stored.developerId],
  ]);
  if (changed.length === 0) return { outcome: 'unchanged' };
  if (!update) return { outcome: 'conflict', detail: changed.join(', ') };
  return withCheckedKeys(
    () => clientRow(record, stored, developerId, methods),
    'updated',
    changed.join(', '),
  );
}

function later(a: number | null, b: number | null | undefined): number | null {
  if (b === undefined || b === null) return a;
  return a === null ? b : Math.max(a, b);
}

export function planToken(
  record: TokenRecord,
  stored: TokenCredential | undefined,
  ownerId: string,
  defaultScope: string,
  update: boolean,
  now: number,
): Decision<TokenCredential> {
  if (stored === undefined) {
    if (record.secret === undefined) {
      return {
        outcome: 'error',
        detail: 'A new token needs its secret (export with --include-secrets).',
      };
    }
    return {
      outcome: 'created',
      row: {
        token: record.token,
        secret: record.secret,
        clientKey: record.client,
        ownerId,
        scope: record.scope ?? defaultScope,
        issuedAt: record.issuedAt ?? now,
        expiresAt: record.expiresAt ?? null,
        lastUsedAt: record.lastUsedAt ?? null,
        deviceHint: record.deviceHint ?? null,
        revokedAt: record.revokedAt ?? null,
        sessionHandleHash: record.sessionHandleHash ?? null,
        sessionExpiresAt: record.sessionExpiresAt ?? null,
      },
    };
  }
  const changed = differences([
    ['secret', record.secret, stored.secret],
    ['client', record.client, stored.clientKey],
    ['owner', ownerId, stored.ownerId],
    ['scope', record.scope, stored.scope],
    ['expiresAt', record.expiresAt, stored.expiresAt],
    ['sessionHandleHash', record.sessionHandleHash, stored.sessionHandleHash],
    ['sessionExpiresAt', record.sessionExpiresAt, stored.sessionExpiresAt],
  ]);
  // Forward only: a revocation stays (the earlier one counts), the last use is the later.
  const revokedAt = stored.revokedAt ?? record.revokedAt ?? null;
  const lastUsedAt = later(stored.lastUsedAt, record.lastUsedAt);
  // The first device seen stays, as when requests record it.
  const deviceHint = stored.deviceHint ?? record.deviceHint ?? null;
  if (changed.length > 0 && !update) return { outcome: 'conflict', detail: changed.join(', ') };
  const row: TokenCredential = {
    token: record.token,
    secret: record.secret ?? stored.secret,
    clientKey: record.client,
    ownerId,
    scope: record.scope ?? stored.scope,
    issuedAt: changed.length > 0 ? (record.issuedAt ?? stored.issuedAt) : stored.issuedAt,
    expiresAt: record.expiresAt === undefined ? stored.expiresAt : record.expiresAt,
    lastUsedAt,
    deviceHint,
    revokedAt,
    sessionHandleHash:
      record.sessionHandleHash === undefined ? stored.sessionHandleHash : record.sessionHandleHash,
    sessionExpiresAt:
      record.sessionExpiresAt === undefined ? stored.sessionExpiresAt : record.sessionExpiresAt,
  };
  const moved = [
    ...changed,
    ...(revokedAt !== stored.revokedAt ? ['revokedAt'] : []),
    ...(lastUsedAt !== stored.lastUsedAt ? ['lastUsedAt'] : []),
    ...(deviceHint !== stored.deviceHint ? ['deviceHint'] : []),
  ];
  if (moved.length === 0) return { outcome: 'unchanged' };
  return { outcome: 'updated', row, detail: moved.join(', ') };
}
