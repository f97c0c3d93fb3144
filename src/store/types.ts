/**
 * The store contract: what the provider asks of storage. Every adapter (sqlite, postgres,
 * redis for nonces and counters) implements these interfaces, and one contract suite
 * (test/stores/contract/) holds each of them to it. Each method names the provider step that
 * calls it; nothing above the provider calls the store. Times are milliseconds since the epoch
 * unless a name says seconds. Methods that must happen once (authorize, exchange, nonce first
 * use, revoke) are atomic in the adapter: never a read followed by a write in Node.
 *
 * The records themselves (Client, Owner, TokenCredential…) are in records.ts, re-exported here.
 */
import type { UsageStore } from './usage.ts';
import type {
  Client,
  ClientChanges,
  LoginChallenge,
  NewClient,
  NewLoginChallenge,
  NewOwner,
  NewTemporaryCredential,
  NewTokenCredential,
  NonceKey,
  Owner,
  OwnerIdentity,
  Session,
  TemporaryCredential,
  TokenCredential,
} from './records.ts';

export type * from './records.ts';

export interface ClientStore {
  /**
   * Throws StoreConflictError when the key exists.
   * Called by: provider/clients/clients.ts register (CLI, developer portal).
   */
  create(client: NewClient): Promise<Client>;
  /** Called by: the verification step load-credentials (§3.4), authorization describe (§2.2), clients, tokens, connections, import. */
  find(key: string): Promise<Client | undefined>;
  /** Called by: provider/clients/clients.ts list (CLI, developer portal). */
  list(filter?: { readonly developerId?: string }): Promise<Client[]>;
  /**
   * Returns the updated client, or undefined when there is none.
   * Called by: provider/clients/clients.ts update, setDisabled, rotateSecret.
   */
  update(key: string, changes: ClientChanges): Promise<Client | undefined>;
  /**
   * Removes the client and every credential issued to it.
   * Called by: provider/clients/clients.ts remove.
   */
  remove(key: string): Promise<boolean>;
}

export interface OwnerStore {
  /**
   * Throws StoreConflictError when the id, the username or the identity exists.
   * Called by: provider/accounts/owners.ts create (local) and signInExternal (first sign-in).
   */
  create(owner: NewOwner): Promise<Owner>;
  /** Called by: verifyResourceRequest (the caller's owner), sessions resume, owners. */
  findById(id: string): Promise<Owner | undefined>;
  /** Called by: provider/accounts/owners.ts authenticate and get; import. */
  findByUsername(username: string): Promise<Owner | undefined>;
  /**
   * The owner with this (source, issuer, subject); a missing issuer matches null.
   * Called by: provider/accounts/owners.ts signInExternal; import.
   */
  findByIdentity(identity: OwnerIdentity): Promise<Owner | undefined>;
  /** Called by: provider/accounts/owners.ts list; export. */
  list(): Promise<Owner[]>;
  /** Called by: provider/accounts/owners.ts setPassword. */
  setPasswordHash(id: string, passwordHash: string): Promise<boolean>;
  /**
   * Sets the display name (an external owner's name follows its source); false when unknown.
   * Called by: provider/accounts/owners.ts signInExternal (the name follows its source).
   */
  rename(id: string, name: string): Promise<boolean>;
  /**
   * Removes the owner and every credential issued for it.
   * Called by: provider/accounts/owners.ts remove.
   */
  remove(id: string): Promise<boolean>;
}

export interface TemporaryCredentialStore {
  /** Called by: provider/flow/temporary-credentials.ts (§2.1). */
  create(credential: NewTemporaryCredential): Promise<void>;
  /** Called by: the verification step load-credentials (§2.3 request) and authorization describe (§2.2). */
  find(token: string): Promise<TemporaryCredential | undefined>;
  /**
   * issued and unexpired at `now` → authorized, atomically. Returns false otherwise
   * (already answered, consumed, expired or unknown).
   * Called by: provider/flow/authorization.ts approve (§2.2).
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
  /**
   * issued and unexpired → denied, atomically.
   * Called by: provider/flow/authorization.ts deny (§2.2).
   */
  deny(token: string, now: number): Promise<boolean>;
  /**
   * Counts one verifier try before it is compared (provider/flow/token-credentials.ts), if fewer
   * than `limit` were counted: an atomic conditional increment, so tries racing on several
   * connections or instances cannot all pass. Returns the try's number (1 to `limit`), or 0
   * when no try is left or the credential is unknown.
   * Called by: provider/flow/token-credentials.ts (§2.3), before the verifier is compared.
   */
  recordVerifierAttempt(token: string, limit: number): Promise<number>;
  /**
   * §2.3: authorized, unexpired at `now` and issued to `clientKey` → consumed, and the token
   * credential created, in one atomic step. Returns the consumed credential, or undefined
   * when any condition fails (so a second exchange of the same credential always fails).
   * Called by: provider/flow/token-credentials.ts (§2.3).
   */
  exchange(
    token: string,
    clientKey: string,
    now: number,
    issue: NewTokenCredential,
  ): Promise<TemporaryCredential | undefined>;
  /** Called by: no provider step (tests and tools). */
  remove(token: string): Promise<boolean>;
  /**
   * Deletes every credential that expired before `now`; returns how many.
   * Called by: provider maintain (periodic upkeep).
   */
  purgeExpired(now: number): Promise<number>;
}

export interface TokenCredentialStore {
  /**
   * Throws StoreConflictError when the token exists.
   * Called by: provider/flow/tokens.ts issue (operator-provisioned tokens).
   */
  create(credential: NewTokenCredential): Promise<TokenCredential>;
  /** Called by: the verification step load-credentials (§3), tokens. */
  find(token: string): Promise<TokenCredential | undefined>;
  /** Called by: provider/flow/tokens.ts list; connections list. */
  list(filter?: {
    readonly ownerId?: string;
    readonly clientKey?: string;
  }): Promise<TokenCredential[]>;
  /**
   * Sets revokedAt if not yet revoked; true when this call revoked it.
   * Called by: provider/flow/tokens.ts revoke; invalidateToken.
   */
  revoke(token: string, now: number): Promise<boolean>;
  /**
   * Session extension: the token `token`, unrevoked, holding the session handle whose hash is
   * `handleHash`, in a session that has not ended at `now`, is deleted and `renewed` created
   * in its place, in one atomic step. Returns the new credential, or undefined when any
   * condition fails (so of two concurrent renewals of one token only one succeeds).
   * Called by: provider/flow/session-extension.ts (session handle renewal).
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
   * Called by: provider/flow/tokens.ts revokeGrant; connections revoke.
   */
  revokeGrant(ownerId: string, clientKey: string, now: number): Promise<number>;
  /**
   * Records last use for many tokens at once (written in batches, off the hot path).
   * Called by: provider flushLastUse (batched last-use times).
   */
  touch(lastUsed: ReadonlyMap<string, number>): Promise<void>;
  /** Called by: no provider step (metrics and tools). */
  count(): Promise<number>;
}

export interface NonceStore {
  /**
   * Insert-if-absent: true the first time this key is seen, false for a replay. The key
   * alone decides (its timestamp included), never `expiresAt`: instances with different
   * timestamp windows, or a restart with another window, find the same entry. The entry
   * lives at least until `expiresAt` (seconds), after which the timestamp window refuses
   * the request anyway.
   * Called by: the verification step that checks the nonce (verify-request.ts, §3.3).
   */
  remember(key: NonceKey, expiresAt: number): Promise<boolean>;
  /**
   * Deletes entries that expired before `now` (seconds); returns how many.
   * Called by: provider maintain (periodic upkeep).
   */
  purgeExpired(now: number): Promise<number>;
  /**
   * Live entries, for metrics and the bounded-size check.
   * Called by: provider nonceCount (metrics).
   */
  size(): Promise<number>;
}

export interface SessionStore {
  /** Called by: provider/accounts/sessions.ts start (sign-in). */
  create(session: Session): Promise<void>;
  /**
   * Returns the session if it exists and has not expired at `now`.
   * Called by: provider/accounts/sessions.ts resume (every page request).
   */
  find(id: string, now: number): Promise<Session | undefined>;
  /** Called by: provider/accounts/sessions.ts end (sign-out). */
  remove(id: string): Promise<boolean>;
  /** Called by: provider/accounts/owners.ts setPassword. */
  removeForOwner(ownerId: string): Promise<number>;
  /** Called by: provider maintain (periodic upkeep). */
  purgeExpired(now: number): Promise<number>;
}

export interface LoginChallengeStore {
  /** Called by: provider/accounts/logins.ts begin. */
  create(challenge: NewLoginChallenge): Promise<void>;
  /** Called by: provider/accounts/logins.ts, to say why a challenge was refused. */
  find(id: string): Promise<LoginChallenge | undefined>;
  /** Called by: provider/accounts/logins.ts complete (an accepted challenge, by its login verifier). */
  findByVerifier(verifier: string): Promise<LoginChallenge | undefined>;
  /**
   * pending and unexpired at `now` → accepted with the outcome, atomically; else undefined.
   * Called by: provider/accounts/logins.ts accept (login app).
   */
  accept(
    id: string,
    outcome: { readonly verifier: string; readonly subject: string; readonly name: string },
    now: number,
  ): Promise<LoginChallenge | undefined>;
  /**
   * pending and unexpired → rejected, atomically; returns it, else undefined.
   * Called by: provider/accounts/logins.ts reject (login app).
   */
  reject(id: string, now: number): Promise<LoginChallenge | undefined>;
  /**
   * The browser came back: `pending` (looked up by id) or `accepted` (by verifier), of this
   * browser, unexpired → used, atomically. Returns it, else undefined (nothing changes).
   * Called by: provider/accounts/logins.ts complete and resume (the browser comes back).
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
  /**
   * Deletes every challenge that expired before `now`; returns how many.
   * Called by: provider maintain (periodic upkeep).
   */
  purgeExpired(now: number): Promise<number>;
}

/** Counters for login throttling: hits within a window per key (account or address). */
export interface AttemptStore {
  /**
   * Adds one hit for `key` and returns the hits within the window ending at `now`.
   * Called by: provider/accounts/sign-in-throttle.ts allow (password sign-in).
   */
  hit(key: string, now: number, windowMs: number): Promise<number>;
  /** Called by: provider/accounts/sign-in-throttle.ts clear (a successful sign-in). */
  reset(key: string): Promise<void>;
}

/** The rows a transfer batch found under its keys (src/store/types.ts TransferStore). */
export interface ExistingRows {
  readonly clients: ReadonlyMap<string, Client>;
  readonly tokens: ReadonlyMap<string, TokenCredential>;
  /**
   * Session extension: the tokens stored under each given session handle hash. A renewal
   * deletes the old token and keeps the hash on its successor, so a hash held by another
   * token means the record's token was renewed away (docs/import.md).
   */
  readonly sessions: ReadonlyMap<string, readonly string[]>;
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
   * Resolves with what `plan` returned. `sessions`: session handle hashes whose tokens
   * `plan` is shown (ExistingRows.sessions).
   * Called by: provider/transfer/import.ts (`latchkey import`).
   */
  writeBatch<T>(
    keys: {
      readonly clients: readonly string[];
      readonly tokens: readonly string[];
      readonly sessions?: readonly string[] | undefined;
    },
    plan: (existing: ExistingRows) => { readonly writes: TransferWrites; readonly result: T },
  ): Promise<T>;
  /**
   * Up to `limit` clients in key order, after the key `after` (from the start when undefined).
   * Called by: provider/transfer/export.ts (`latchkey export`).
   */
  clientsAfter(after: string | undefined, limit: number): Promise<Client[]>;
  /**
   * Up to `limit` token credentials in token order, after `after`.
   * Called by: provider/transfer/export.ts (`latchkey export`).
   */
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
   * Called by: provider/verify/rate-limits.ts (per-client request and failure limits).
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
  /**
   * How a verifier is stored: keyed with the current sealing key (HMAC-SHA256), or its
   * SHA-256 without one (src/store/sealing.ts verifierDigestWith).
   * Called by: provider/flow/authorization.ts (approve).
   */
  verifierDigest(verifier: string): string;
  /**
   * Whether `verifier` is the one `stored` was made from (under any configured key, or an
   * unkeyed digest), in constant time.
   * Called by: provider/flow/token-credentials.ts (§2.3).
   */
  verifierMatches(verifier: string, stored: string): boolean;
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
  /** A client's use per day (usage.ts). */
  readonly usage: UsageStore;
  /**
   * True when the backing services answer (for /readyz).
   * Called by: provider ping (/readyz).
   */
  ping(): Promise<boolean>;
  /** Called by: the owner of the store (the CLI through provider close, embedders). */
  close(): Promise<void>;
}

/** A unique key or username is taken. */
export class StoreConflictError extends Error {
  override readonly name = 'StoreConflictError';
}

/**
 * The backing service cannot be reached, or cannot serve a row now (SealedValueError, a
 * secret sealed under a key not configured); callers answer 503 with Retry-After, fail closed.
 */
export class StoreUnavailableError extends Error {
  override readonly name: string = 'StoreUnavailableError';
}
