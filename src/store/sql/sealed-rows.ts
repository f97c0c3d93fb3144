/**
 * Whole rows of the tables written with their secret, sealed (src/store/sealing.ts) under
 * the row's key as additional data, once for both SQL stores: the transfer batches, the token
 * inserts and the new temporary credentials write these. Each adapter spells booleans and lists its own way.
 */
import { sealedIn, type Sealer } from '../sealing.ts';
import type {
  Client,
  NewTemporaryCredential,
  NewTokenCredential,
  TokenCredential,
} from '../types.ts';

/** How a dialect stores what it has no common type for. */
export interface Spelling {
  bool(value: boolean): unknown;
  list(value: readonly string[]): unknown;
}

export const clientColumns = [
  'key',
  'secret',
  'secret_key_id',
  'name',
  'description',
  'website',
  'callbacks',
  'signature_methods',
  'rsa_public_key',
  'constrained_device',
  'verified',
  'developer_id',
  'disabled',
  'session_extension',
  'created_at',
  'remember_consent',
  'token_response_identity',
  'scopes',
] as const;

export const tokenColumns = [
  'token',
  'secret',
  'secret_key_id',
  'client_key',
  'owner_id',
  'scope',
  'issued_at',
  'expires_at',
  'last_used_at',
  'revoked_at',
  'session_handle_hash',
  'session_expires_at',
  'device_hint',
] as const;

/** A new temporary credential's columns (its state is 'issued'). */
export const temporaryColumns = [
  'token',
  'secret',
  'secret_key_id',
  'client_key',
  'callback',
  'requested_scope',
  'created_at',
  'expires_at',
] as const;

export type ClientRow = Record<(typeof clientColumns)[number], unknown>;
export type TokenRow = Record<(typeof tokenColumns)[number], unknown>;

export function sealedClientRow(client: Client, sealer: Sealer, spell: Spelling): ClientRow {
  const secret = sealer.seal(client.secret, sealedIn.client(client.key));
  return {
    key: client.key,
    secret: secret.value,
    secret_key_id: secret.keyId,
    name: client.name,
    description: client.description,
    website: client.website,
    callbacks: spell.list(client.callbacks),
    signature_methods: spell.list(client.signatureMethods),
    rsa_public_key: client.publicKey,
    constrained_device: spell.bool(client.constrainedDevice),
    verified: spell.bool(client.verified),
    developer_id: client.developerId,
    disabled: spell.bool(client.disabled),
    session_extension: spell.bool(client.sessionExtension),
    created_at: client.createdAt,
    remember_consent: client.rememberConsent,
    token_response_identity: spell.bool(client.tokenResponseIdentity),
    scopes: spell.list(client.scopes),
  };
}

/** A token credential's row; a new one is neither used nor revoked yet, nor in a session. */
export function sealedTokenRow(
  token: NewTokenCredential &
    Partial<Pick<TokenCredential, 'lastUsedAt' | 'revokedAt' | 'deviceHint'>>,
  sealer: Sealer,
): TokenRow {
  const secret = sealer.seal(token.secret, sealedIn.tokenCredential(token.token));
  return {
    token: token.token,
    secret: secret.value,
    secret_key_id: secret.keyId,
    client_key: token.clientKey,
    owner_id: token.ownerId,
    scope: token.scope,
    issued_at: token.issuedAt,
    expires_at: token.expiresAt,
    last_used_at: token.lastUsedAt ?? null,
    revoked_at: token.revokedAt ?? null,
    session_handle_hash: token.sessionHandleHash ?? null,
    session_expires_at: token.sessionExpiresAt ?? null,
    device_hint: token.deviceHint ?? null,
  };
}

/** §2.1: a new temporary credential's row, its secret sealed. */
export function sealedTemporaryRow(credential: NewTemporaryCredential, sealer: Sealer) {
  const secret = sealer.seal(credential.secret, sealedIn.temporaryCredential(credential.token));
  return {
    token: credential.token,
    secret: secret.value,
    secret_key_id: secret.keyId,
    client_key: credential.clientKey,
    callback: credential.callback,
    requested_scope: credential.requestedScope,
    created_at: credential.createdAt,
    expires_at: credential.expiresAt,
  } satisfies Record<(typeof temporaryColumns)[number], unknown>;
}

/** The row's values in its columns' order, for positional parameters. */
export function valuesOf<C extends string>(columns: readonly C[], row: Record<C, unknown>) {
  return columns.map((column) => row[column]);
}
