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
  readonly createdAt: number;
}

/** A client to store; `createdAt` defaults to the store's clock (set when importing). */
export type NewClient = Omit<Client, 'createdAt'> & { readonly createdAt?: number | undefined };

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
    | 'secret'
  >
>;

/** A resource owner account. The password is stored only as a KDF hash. */
export interface Owner {
  readonly id: string;
  readonly username: string;
  readonly passwordHash: string;
  readonly createdAt: number;
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
}

export type NewTokenCredential = Omit<TokenCredential, 'lastUsedAt' | 'revokedAt'>;

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
  /** Throws StoreConflictError when the username exists. */
  create(owner: Omit<Owner, 'createdAt'> & { readonly createdAt?: number }): Promise<Owner>;
  findById(id: string): Promise<Owner | undefined>;
  /** What findById() would give, without a promise, when it is cached; see {@link Peek}. */
  readonly peekById?: Peek<Owner> | undefined;
  findByUsername(username: string): Promise<Owner | undefined>;
  list(): Promise<Owner[]>;
  setPasswordHash(id: string, passwordHash: string): Promise<boolean>;
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
  /** Adds one wrong-verifier try and returns the new count (atomic increment). */
  recordVerifierFailure(token: string): Promise<number>;
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
  /** Revokes every live token of an owner for a client; returns how many. */
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
   * Insert-if-absent: true the first time this key is seen, false for a replay. The entry
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

export interface Store {
  readonly clients: ClientStore;
  readonly owners: OwnerStore;
  readonly temporaryCredentials: TemporaryCredentialStore;
  readonly tokenCredentials: TokenCredentialStore;
  readonly nonces: NonceStore;
  readonly sessions: SessionStore;
  readonly attempts: AttemptStore;
  readonly transfer: TransferStore;
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
