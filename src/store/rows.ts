/**
 * Rows to domain objects, once for every adapter. Each adapter supplies only its driver's
 * column readers (SQLite stores booleans as 0/1 and lists as JSON text; PostgreSQL has
 * BOOLEAN and TEXT[]); the column names and the mapping live here.
 */
import { createSealer, sealedIn, type Sealer } from './sealing.ts';
import type {
  Client,
  ClientChanges,
  IdentitySource,
  LoginChallenge,
  LoginChallengeState,
  Owner,
  RememberConsent,
  RememberedConsent,
  Session,
  TemporaryCredential,
  TemporaryCredentialState,
  TokenCredential,
} from './types.ts';

/** Typed readers of one driver's row values; a wrong type throws (a damaged or foreign schema). */
export interface ColumnReader<Row> {
  text(row: Row, column: string): string;
  textOrNull(row: Row, column: string): string | null;
  int(row: Row, column: string): number;
  intOrNull(row: Row, column: string): number | null;
  bool(row: Row, column: string): boolean;
  stringList(row: Row, column: string): string[];
}

/** The client columns a partial update may set; SET lists are built from these names only. */
export const updatableClientColumns = {
  name: 'name',
  description: 'description',
  website: 'website',
  callbacks: 'callbacks',
  signatureMethods: 'signature_methods',
  // The column keeps its first name: renaming it would break instances still running the
  // previous version while `latchkey migrate` runs (docs/deployment.md, upgrades).
  publicKey: 'rsa_public_key',
  constrainedDevice: 'constrained_device',
  verified: 'verified',
  disabled: 'disabled',
  sessionExtension: 'session_extension',
  requestsPerMinute: 'requests_per_minute',
  failuresPerMinute: 'failures_per_minute',
  rememberConsent: 'remember_consent',
  tokenResponseIdentity: 'token_response_identity',
  scopes: 'scopes',
  secret: 'secret',
} as const satisfies Record<keyof ClientChanges, string>;

const states: readonly string[] = ['issued', 'authorized', 'consumed', 'denied'];
const sources: readonly string[] = ['local', 'oidc', 'delegated'];
const rememberModes: readonly string[] = ['never', 'same-scope'];
const loginStates: readonly string[] = ['pending', 'accepted', 'rejected', 'used'];

function oneOf<T extends string>(allowed: readonly string[], value: string, what: string): T {
  if (!allowed.includes(value)) throw new TypeError(`Unknown ${what}.`);
  return value as T;
}

function toState(value: string): TemporaryCredentialState {
  if (!states.includes(value)) throw new TypeError('Unknown temporary credential state.');
  return value as TemporaryCredentialState;
}

/**
 * The mappers of one driver. Rows holding a secret (clients, temporary and token credentials)
 * are opened with `sealer` (src/store/sealing.ts): `secret` with the key named by
 * `secret_key_id`, null for a value in clear.
 */
export function rowMappers<Row>(read: ColumnReader<Row>, sealer: Sealer = createSealer()) {
  const secret = (row: Row, context: string): string =>
    sealer.open(
      { value: read.text(row, 'secret'), keyId: read.textOrNull(row, 'secret_key_id') },
      context,
    );
  return {
    toClient: (row: Row): Client => ({
      key: read.text(row, 'key'),
      secret: secret(row, sealedIn.client(read.text(row, 'key'))),
      name: read.text(row, 'name'),
      description: read.text(row, 'description'),
      website: read.textOrNull(row, 'website'),
      callbacks: read.stringList(row, 'callbacks'),
      signatureMethods: read.stringList(row, 'signature_methods'),
      publicKey: read.textOrNull(row, 'rsa_public_key'),
      constrainedDevice: read.bool(row, 'constrained_device'),
      verified: read.bool(row, 'verified'),
      developerId: read.textOrNull(row, 'developer_id'),
      disabled: read.bool(row, 'disabled'),
      sessionExtension: read.bool(row, 'session_extension'),
      requestsPerMinute: read.intOrNull(row, 'requests_per_minute'),
      failuresPerMinute: read.intOrNull(row, 'failures_per_minute'),
      rememberConsent: oneOf<RememberConsent>(
        rememberModes,
        read.text(row, 'remember_consent'),
        'remembered consent',
      ),
      tokenResponseIdentity: read.bool(row, 'token_response_identity'),
      scopes: read.stringList(row, 'scopes'),
      createdAt: read.int(row, 'created_at'),
    }),
    toOwner: (row: Row): Owner => ({
      id: read.text(row, 'id'),
      source: oneOf<IdentitySource>(sources, read.text(row, 'source'), 'identity source'),
      subject: read.text(row, 'subject'),
      issuer: read.textOrNull(row, 'issuer'),
      name: read.text(row, 'name'),
      username: read.textOrNull(row, 'username'),
      passwordHash: read.textOrNull(row, 'password_hash'),
      createdAt: read.int(row, 'created_at'),
    }),
    toLoginChallenge: (row: Row): LoginChallenge => ({
      id: read.text(row, 'id'),
      kind: oneOf<LoginChallenge['kind']>(['oidc', 'delegated'], read.text(row, 'kind'), 'kind'),
      browser: read.text(row, 'browser'),
      origin: read.text(row, 'origin'),
      next: read.text(row, 'next'),
      oauthToken: read.textOrNull(row, 'oauth_token'),
      data: read.text(row, 'data'),
      state: oneOf<LoginChallengeState>(loginStates, read.text(row, 'state'), 'login state'),
      verifier: read.textOrNull(row, 'verifier'),
      subject: read.textOrNull(row, 'subject'),
      name: read.textOrNull(row, 'name'),
      createdAt: read.int(row, 'created_at'),
      expiresAt: read.int(row, 'expires_at'),
    }),
    toRememberedConsent: (row: Row): RememberedConsent => ({
      ownerId: read.text(row, 'owner_id'),
      clientKey: read.text(row, 'client_key'),
      scope: read.text(row, 'scope'),
      since: read.int(row, 'since'),
    }),
    toSession: (row: Row): Session => ({
      id: read.text(row, 'id'),
      ownerId: read.text(row, 'owner_id'),
      createdAt: read.int(row, 'created_at'),
      expiresAt: read.int(row, 'expires_at'),
    }),
    toTemporaryCredential: (row: Row): TemporaryCredential => ({
      token: read.text(row, 'token'),
      secret: secret(row, sealedIn.temporaryCredential(read.text(row, 'token'))),
      clientKey: read.text(row, 'client_key'),
      callback: read.text(row, 'callback'),
      requestedScope: read.text(row, 'requested_scope'),
      state: toState(read.text(row, 'state')),
      ownerId: read.textOrNull(row, 'owner_id'),
      verifier: read.textOrNull(row, 'verifier'),
      approvedScope: read.textOrNull(row, 'approved_scope'),
      approvedLifetime: read.intOrNull(row, 'approved_lifetime'),
      verifierFailures: read.int(row, 'verifier_failures'),
      createdAt: read.int(row, 'created_at'),
      expiresAt: read.int(row, 'expires_at'),
    }),
    toTokenCredential: (row: Row): TokenCredential => ({
      token: read.text(row, 'token'),
      secret: secret(row, sealedIn.tokenCredential(read.text(row, 'token'))),
      clientKey: read.text(row, 'client_key'),
      ownerId: read.text(row, 'owner_id'),
      scope: read.text(row, 'scope'),
      issuedAt: read.int(row, 'issued_at'),
      expiresAt: read.intOrNull(row, 'expires_at'),
      lastUsedAt: read.intOrNull(row, 'last_used_at'),
      deviceHint: read.textOrNull(row, 'device_hint'),
      revokedAt: read.intOrNull(row, 'revoked_at'),
      sessionHandleHash: read.textOrNull(row, 'session_handle_hash'),
      sessionExpiresAt: read.intOrNull(row, 'session_expires_at'),
    }),
  };
}
