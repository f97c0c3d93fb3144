/**
 * The storage contract. Every adapter (sqlite, postgres, redis for nonces) implements these
 * interfaces, and one contract suite (test/stores/contract.ts) holds each of them to it.
 * Times are milliseconds since the epoch unless a name says seconds. Methods that must
 * happen once (authorize, exchange, nonce first use, revoke) are atomic in the adapter:
 * never a read followed by a write in Node.
 */

/** A registered client (RFC 5849 §1.1 "client credentials" plus what the owner is shown). */
export interface Client {
  /** `oauth_consumer_key`. */
  readonly key: string;
  /** The shared secret (plain: HMAC and PLAINTEXT need it, §3.4.2); '' for an RSA-only client. */
  readonly secret: string;
  readonly name: string;
  readonly description: string;
  readonly website: string | null;
  /** Registered callback URIs; when non-empty `oauth_callback` must be one of them or `oob`. */
  readonly callbacks: readonly string[];
  /** Signature methods this client may use; empty means every method the server allows. */
  readonly signatureMethods: readonly string[];
  /** PEM public key for the RSA methods, or null. */
  readonly rsaPublicKey: string | null;
  /** Runs on a device where typing is hard: the `oob` verifier is shown as a short code. */
  readonly constrainedDevice: boolean;
  /** Marked verified by an operator; the consent page says so. */
  readonly verified: boolean;
  /** The owner account that registered it in the developer portal, or null (CLI). */
  readonly developerId: string | null;
  /**
   * Turned off by an operator: every request signed with its key is refused until it is
   * enabled again; its tokens are kept.
   */
  readonly disabled: boolean;
  /**
   * Uses the session extension (OAuth Session 1.0 draft): its token credentials are
   * short-lived and renewed with a session handle (docs/decisions.md). Off by default.
   */
  readonly sessionExtension: boolean;
  /**
   * Its own rate limits (docs/security.md#rate-limits): protected-resource requests, and
   * failed verifications from one address, per minute; null for the server's default.
   */
  readonly requestsPerMinute: number | null;
  readonly failuresPerMinute: number | null;
  readonly createdAt: number;
}

/** A client to store; `createdAt` defaults to the store's clock (set when importing). */
export type NewClient = Omit<
  Client,
  'createdAt' | 'sessionExtension' | 'requestsPerMinute' | 'failuresPerMinute'
> & {
  readonly createdAt?: number | undefined;
  /** Default false. */
  readonly sessionExtension?: boolean | undefined;
};

export type ClientChanges = Partial<
  Pick<
    Client,
    | 'name'
    | 'description'
    | 'website'
    | 'callbacks'
    | 'signatureMethods'
    | 'rsaPublicKey'
    | 'constrainedDevice'
    | 'verified'
    | 'disabled'
    | 'sessionExtension'
    | 'requestsPerMinute'
    | 'failuresPerMinute'
    | 'secret'
  >
>;

/** Where an owner comes from: Latchkey's own accounts, an OpenID Connect provider, a login app. */
export type IdentitySource = 'local' | 'oidc' | 'delegated';

/**
 * A resource owner. `id` is Latchkey's own key (credentials and sessions refer to it); the
 * stable identity is (source, issuer, subject), unique. A local owner signs in with a
 * username and a password stored only as a KDF hash; an external one has neither.
 */
export interface Owner {
  readonly id: string;
  readonly source: IdentitySource;
  /** Stable within its source: the id (local), the ID token's `sub` (oidc), the login app's (delegated). */
  readonly subject: string;
  /** The OpenID Connect issuer of an `oidc` owner; null for the others. */
  readonly issuer: string | null;
  /** What people and the API are shown (the username of a local owner). */
  readonly name: string;
  /** A local owner's sign-in name; null for an external one. */
  readonly username: string | null;
  /** A local owner's password, as a KDF hash; null for an external one. */
  readonly passwordHash: string | null;
  readonly createdAt: number;
}

export type NewOwner = Omit<Owner, 'createdAt'> & { readonly createdAt?: number };

/** How an owner is found from its source: `(source, issuer, subject)`. */
export interface OwnerIdentity {
  readonly source: IdentitySource;
  readonly subject: string;
  /** The issuer of an `oidc` owner; absent or null for the others. */
  readonly issuer?: string | null | undefined;
}

export type TemporaryCredentialState = 'issued' | 'authorized' | 'consumed' | 'denied';

/** RFC 5849 §2.1–2.3: an authorization request in flight. */
export interface TemporaryCredential {
  readonly token: string;
  readonly secret: string;
  readonly clientKey: string;
  /** `oob` or an absolute URI (§2.1). */
  readonly callback: string;
  /** The scope the client asked for ('' for the server default). */
  readonly requestedScope: string;
  readonly state: TemporaryCredentialState;
  /** Set by authorize(). */
  readonly ownerId: string | null;
  readonly verifier: string | null;
  /** The scope and lifetime (seconds, null for no expiry) the owner approved. */
  readonly approvedScope: string | null;
  readonly approvedLifetime: number | null;
  /** Verifier tries counted so far (each counted before it is compared). */
  readonly verifierFailures: number;
  readonly createdAt: number;
  readonly expiresAt: number;
}

export type NewTemporaryCredential = Pick<
  TemporaryCredential,
  'token' | 'secret' | 'clientKey' | 'callback' | 'requestedScope' | 'createdAt' | 'expiresAt'
>;

/** The owner's grant to a client (§2.3), usable until it expires or is revoked. */
export interface TokenCredential {
  readonly token: string;
  readonly secret: string;
  readonly clientKey: string;
  readonly ownerId: string;
  readonly scope: string;
  readonly issuedAt: number;
  /** null: no expiry. */
  readonly expiresAt: number | null;
  readonly lastUsedAt: number | null;
  readonly revokedAt: number | null;
  /**
   * Session extension: SHA-256 (hex) of the session handle that renews this token, or null
   * for a token without a session. The handle itself is never stored.
   */
  readonly sessionHandleHash: string | null;
  /** When the session (the owner's authorization) ends; null: when it is revoked. */
  readonly sessionExpiresAt: number | null;
}

export type NewTokenCredential = Omit<
  TokenCredential,
  'lastUsedAt' | 'revokedAt' | 'sessionHandleHash' | 'sessionExpiresAt'
> &
  Partial<Pick<TokenCredential, 'sessionHandleHash' | 'sessionExpiresAt'>>;

/**
 * A synchronous look into a store's read cache, for the verification hot path: the value
 * find() would resolve to, exactly (a store offers it only where its cache is exact), or
 * undefined when find() must be asked (not cached, or not found). Each awaited lookup costs
 * a promise and a turn of the microtask queue; a cached one need not.
 */
export type Peek<V> = (key: string) => V | undefined;

export interface ClientStore {
  /** Throws StoreConflictError when the key exists. */
  create(client: NewClient): Promise<Client>;
  find(key: string): Promise<Client | undefined>;
  /** What find() would give, without a promise, when the answer is cached; see {@link Peek}. */
  readonly peek?: Peek<Client> | undefined;
  list(filter?: { readonly developerId?: string }): Promise<Client[]>;
  /** Returns the updated client, or undefined when there is none. */
  update(key: string, changes: ClientChanges): Promise<Client | undefined>;
  /** Removes the client and every credential issued to it. */
  remove(key: string): Promise<boolean>;
}

export interface OwnerStore {
  /** Throws StoreConflictError when the id, the username or the identity exists. */
  create(owner: NewOwner): Promise<Owner>;
  findById(id: string): Promise<Owner | undefined>;
  /** What findById() would give, without a promise, when it is cached; see {@link Peek}. */
  readonly peekById?: Peek<Owner> | undefined;
  findByUsername(username: string): Promise<Owner | undefined>;
  /** The owner with this (source, issuer, subject); a missing issuer matches null. */
  findByIdentity(identity: OwnerIdentity): Promise<Owner | undefined>;
  list(): Promise<Owner[]>;
  setPasswordHash(id: string, passwordHash: string): Promise<boolean>;
  /** Sets the display name (an external owner's name follows its source); false when unknown. */
  rename(id: string, name: string): Promise<boolean>;
  /** Removes the owner and every credential issued for it. */
  remove(id: string): Promise<boolean>;
}

export interface TemporaryCredentialStore {
  create(credential: NewTemporaryCredential): Promise<void>;
  find(token: string): Promise<TemporaryCredential | undefined>;
  /**
   * issued and unexpired at `now` → authorized, atomically. Returns false otherwise
   * (already answered, consumed, expired or unknown).
   */
  authorize(
    token: string,
    grant: {
      readonly ownerId: string;
      readonly verifier: string;
      readonly scope: string;
      readonly lifetime: number | null;
    },
    now: number,
  ): Promise<boolean>;
  /** issued and unexpired → denied, atomically. */
  deny(token: string, now: number): Promise<boolean>;
  /**
   * Counts one verifier try before it is compared (provider/token-credentials.ts), if fewer
   * than `limit` were counted: an atomic conditional increment, so tries racing on several
   * connections or instances cannot all pass. Returns the try's number (1 to `limit`), or 0
   * when no try is left or the credential is unknown.
   */
  recordVerifierAttempt(token: string, limit: number): Promise<number>;
  /**
   * §2.3: authorized, unexpired at `now` and issued to `clientKey` → consumed, and the token
   * credential created, in one atomic step. Returns the consumed credential, or undefined
   * when any condition fails (so a second exchange of the same credential always fails).
   */
  exchange(
    token: string,
    clientKey: string,
    now: number,
    issue: NewTokenCredential,
  ): Promise<TemporaryCredential | undefined>;
  remove(token: string): Promise<boolean>;
  /** Deletes every credential that expired before `now`; returns how many. */
  purgeExpired(now: number): Promise<number>;
}

export interface TokenCredentialStore {
  /** Throws StoreConflictError when the token exists. */
  create(credential: NewTokenCredential): Promise<TokenCredential>;
  find(token: string): Promise<TokenCredential | undefined>;
  /** What find() would give, without a promise, when the answer is cached; see {@link Peek}. */
  readonly peek?: Peek<TokenCredential> | undefined;
  list(filter?: {
    readonly ownerId?: string;
    readonly clientKey?: string;
  }): Promise<TokenCredential[]>;
  /** Sets revokedAt if not yet revoked; true when this call revoked it. */
  revoke(token: string, now: number): Promise<boolean>;
  /**
   * Session extension: the token `token`, unrevoked, holding the session handle whose hash is
   * `handleHash`, in a session that has not ended at `now`, is deleted and `renewed` created
   * in its place, in one atomic step. Returns the new credential, or undefined when any
   * condition fails (so of two concurrent renewals of one token only one succeeds).
   */
  renew(
    token: string,
    handleHash: string,
    now: number,
    renewed: NewTokenCredential,
  ): Promise<TokenCredential | undefined>;
  /**
   * Revokes every live token of an owner for a client (a token whose session can still renew
   * it counts as live, expired or not); returns how many.
   */
  revokeGrant(ownerId: string, clientKey: string, now: number): Promise<number>;
  /** Records last use for many tokens at once (written in batches, off the hot path). */
  touch(lastUsed: ReadonlyMap<string, number>): Promise<void>;
  count(): Promise<number>;
}

/** What makes a nonce unique (§3.3): timestamp, client, token and the nonce itself. */
export interface NonceKey {
  readonly clientKey: string;
  /** '' when the request carries no token. */
  readonly token: string;
  readonly timestamp: number;
  readonly nonce: string;
}

export interface NonceStore {
  /**
   * Insert-if-absent: true the first time this key is seen, false for a replay. The key
   * alone decides (its timestamp included), never `expiresAt`: instances with different
   * timestamp windows, or a restart with another window, find the same entry. The entry
   * lives at least until `expiresAt` (seconds), after which the timestamp window refuses
   * the request anyway.
   */
  remember(key: NonceKey, expiresAt: number): Promise<boolean>;
  /** Deletes entries that expired before `now` (seconds); returns how many. */
  purgeExpired(now: number): Promise<number>;
  /** Live entries, for metrics and the bounded-size check. */
  size(): Promise<number>;
}

/** A signed-in owner's browser session (web pages). */
export interface Session {
  readonly id: string;
  readonly ownerId: string;
  readonly createdAt: number;
  readonly expiresAt: number;
}

export interface SessionStore {
  create(session: Session): Promise<void>;
  /** Returns the session if it exists and has not expired at `now`. */
  find(id: string, now: number): Promise<Session | undefined>;
  remove(id: string): Promise<boolean>;
  removeForOwner(ownerId: string): Promise<number>;
  purgeExpired(now: number): Promise<number>;
}

export type LoginChallengeState = 'pending' | 'accepted' | 'rejected' | 'used';

/**
 * A sign-in handed to another party (an OpenID Connect provider, the team's login app) and
 * waited for. Only SHA-256 digests of the challenge, the browser-binding cookie and the login
 * verifier are kept, so a leaked row cannot be replayed. One-time: every transition out of
 * `pending` or `accepted` is atomic and conditional on the state and the expiry.
 */
export interface LoginChallenge {
  /** Digest of the challenge (the OpenID Connect `state`, or the `login_challenge`). */
  readonly id: string;
  readonly kind: 'oidc' | 'delegated';
  /** Digest of the browser-binding cookie of the browser that started it. */
  readonly browser: string;
  /** The base URL that browser used, to send it back to. */
  readonly origin: string;
  /** The local path to return to once signed in. */
  readonly next: string;
  /** The authorization request (temporary credential) it is bound to, if any. */
  readonly oauthToken: string | null;
  /** Kind-specific data the callback needs (the OIDC nonce and PKCE verifier), JSON text. */
  readonly data: string;
  readonly state: LoginChallengeState;
  /** Digest of the login verifier handed out on accept. */
  readonly verifier: string | null;
  /** Who the login app said it is, set on accept. */
  readonly subject: string | null;
  readonly name: string | null;
  readonly createdAt: number;
  readonly expiresAt: number;
}

export type NewLoginChallenge = Omit<LoginChallenge, 'state' | 'verifier' | 'subject' | 'name'>;

export interface LoginChallengeStore {
  create(challenge: NewLoginChallenge): Promise<void>;
  find(id: string): Promise<LoginChallenge | undefined>;
  findByVerifier(verifier: string): Promise<LoginChallenge | undefined>;
  /** pending and unexpired at `now` → accepted with the outcome, atomically; else undefined. */
  accept(
    id: string,
    outcome: { readonly verifier: string; readonly subject: string; readonly name: string },
    now: number,
  ): Promise<LoginChallenge | undefined>;
  /** pending and unexpired → rejected, atomically; returns it, else undefined. */
  reject(id: string, now: number): Promise<LoginChallenge | undefined>;
  /**
   * The browser came back: `pending` (looked up by id) or `accepted` (by verifier), of this
   * browser, unexpired → used, atomically. Returns it, else undefined (nothing changes).
   */
  consume(
    from:
      | { readonly state: 'pending'; readonly id: string }
      | {
          readonly state: 'accepted';
          readonly verifier: string;
        },
    browser: string,
    now: number,
  ): Promise<LoginChallenge | undefined>;
  /** Deletes every challenge that expired before `now`; returns how many. */
  purgeExpired(now: number): Promise<number>;
}

/** Counters for login throttling: hits within a window per key (account or address). */
export interface AttemptStore {
  /** Adds one hit for `key` and returns the hits within the window ending at `now`. */
  hit(key: string, now: number, windowMs: number): Promise<number>;
  reset(key: string): Promise<void>;
}

/** The rows a transfer batch found under its keys (src/store/types.ts TransferStore). */
export interface ExistingRows {
  readonly clients: ReadonlyMap<string, Client>;
  readonly tokens: ReadonlyMap<string, TokenCredential>;
}

/** What a transfer batch writes: new rows, and whole rows replacing the stored ones. */
export interface TransferWrites {
  readonly createClients: readonly Client[];
  readonly replaceClients: readonly Client[];
  readonly createTokens: readonly TokenCredential[];
  readonly replaceTokens: readonly TokenCredential[];
}

/**
 * Moving credentials in and out in bulk (`latchkey import` / `latchkey export`): whole rows,
 * times included, in batches. Used by the provider's transfer operations only.
 */
export interface TransferStore {
  /**
   * One atomic batch: reads the clients and token credentials stored under the given keys
   * (locking them against other writers), asks `plan` what to write, and writes it, clients
   * before tokens, in one transaction: every row of the batch is written, or none. Creating a
   * row whose key exists fails the batch with StoreConflictError (someone wrote it meanwhile).
   * Resolves with what `plan` returned.
   */
  writeBatch<T>(
    keys: { readonly clients: readonly string[]; readonly tokens: readonly string[] },
    plan: (existing: ExistingRows) => { readonly writes: TransferWrites; readonly result: T },
  ): Promise<T>;
  /** Up to `limit` clients in key order, after the key `after` (from the start when undefined). */
  clientsAfter(after: string | undefined, limit: number): Promise<Client[]>;
  /** Up to `limit` token credentials in token order, after `after`. */
  tokensAfter(after: string | undefined, limit: number): Promise<TokenCredential[]>;
}

/**
 * Fixed-window counters for rate limits, after the store contract of @fastify/rate-limit
 * (`incr(key, timeWindow)` answering the count and the time left): in Redis when the store
 * has it (every instance shares the count), in memory otherwise. Used by the provider's
 * rate limits only.
 */
export interface RateCounterStore {
  /**
   * Counts `hits` (default 1) on `key`, atomically: the hits in its current window (these
   * included) and the milliseconds until that window ends. The first hit starts a window of
   * `windowMs`.
   */
  incr(
    key: string,
    windowMs: number,
    hits?: number,
  ): Promise<{ readonly count: number; readonly ttlMs: number }>;
}

/**
 * Secrets at rest (src/store/sealing.ts): which keys the stored secrets of clients, temporary
 * and token credentials are sealed under, and re-sealing them under the current key (after a
 * key is first configured, or rotated). Used by `latchkey keys` and at start-up.
 */
export interface SealedSecretStore {
  /** Rows per key id over the three tables; '' counts the secrets stored in clear. */
  countByKey(): Promise<Map<string, number>>;
  /**
   * Re-seals, under the current key, every secret that is in clear or under another key, in
   * batches of `batchSize` rows (each its own short transaction, so the store keeps serving);
   * a row changed meanwhile is left to its writer. Returns how many it re-sealed; 0 without a
   * current key.
   */
  reseal(options?: { readonly batchSize?: number }): Promise<number>;
}

/** Who acted: a resource owner, a client, the login app through the admin API, or the operator (CLI). */
export type AuditActor = 'owner' | 'client' | 'admin' | 'operator';

/** One security event (docs/security.md "The audit trail"). Never holds a secret. */
export interface AuditEvent {
  readonly id: number;
  readonly at: number;
  /** What happened: `owner.signed-in`, `authorization.granted`, `client.deleted`, … */
  readonly event: string;
  readonly actor: AuditActor;
  readonly ownerId: string | null;
  readonly clientKey: string | null;
  /** The address the request came from (as the trusted proxy gave it); null from the CLI. */
  readonly address: string | null;
  /** Further facts, JSON text (fields changed, counts, the reason of a refusal). */
  readonly detail: string;
}

export type NewAuditEvent = Omit<AuditEvent, 'id'>;

export interface AuditStore {
  append(event: NewAuditEvent): Promise<void>;
  /** Newest first, at most `limit`, filtered by time (`since`, inclusive), client and owner. */
  list(filter: {
    readonly since?: number | undefined;
    readonly clientKey?: string | undefined;
    readonly ownerId?: string | undefined;
    readonly limit: number;
  }): Promise<AuditEvent[]>;
  /** Deletes the events older than `before`; returns how many (retention). */
  purgeBefore(before: number): Promise<number>;
}

export interface Store {
  readonly clients: ClientStore;
  readonly owners: OwnerStore;
  readonly temporaryCredentials: TemporaryCredentialStore;
  readonly tokenCredentials: TokenCredentialStore;
  readonly nonces: NonceStore;
  readonly sessions: SessionStore;
  readonly attempts: AttemptStore;
  readonly rateCounters: RateCounterStore;
  readonly transfer: TransferStore;
  readonly loginChallenges: LoginChallengeStore;
  readonly secrets: SealedSecretStore;
  readonly audit: AuditStore;
  /** True when the backing services answer (for /readyz). */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** A unique key or username is taken. */
export class StoreConflictError extends Error {
  override readonly name = 'StoreConflictError';
}

/** The backing service cannot be reached; callers answer 503 with Retry-After, fail closed. */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}
