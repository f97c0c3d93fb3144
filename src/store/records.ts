/**
 * The domain records: what the store keeps and the provider hands out (clients, owners,
 * temporary and token credentials, nonces, sessions, login challenges). Times are
 * milliseconds since the epoch unless a name says seconds. The store contract that keeps them
 * is in types.ts.
 */

/** A registered client (RFC 5849 §1.1 "client credentials" plus what the owner is shown). */
export interface Client {
  /** `oauth_consumer_key`. */
  readonly key: string;
  /** The shared secret (plain: HMAC and PLAINTEXT need it, §3.4.2); '' for a client that signs with its public key only. */
  readonly secret: string;
  readonly name: string;
  readonly description: string;
  readonly website: string | null;
  /** Registered callback URIs; when non-empty `oauth_callback` must be one of them or `oob`. */
  readonly callbacks: readonly string[];
  /** Signature methods this client may use; empty means every method the server allows. */
  readonly signatureMethods: readonly string[];
  /**
   * PEM public key or X.509 certificate for the public-key methods (§3.4.3), or null. Kept in
   * the column `rsa_public_key`, its name from when RSA was the only such method.
   */
  readonly publicKey: string | null;
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
  /**
   * Whether an owner's consent is remembered (docs/identity.md "Remembered consent"): 'never',
   * or 'same-scope' (a request within the scope the owner allowed is approved without asking).
   * Set by the operator only (docs/decisions.md).
   */
  readonly rememberConsent: RememberConsent;
  /** The token response names the owner (`user_id`, `screen_name`). Off by default. */
  readonly tokenResponseIdentity: boolean;
  /**
   * Its scope ceiling: the operator's scopes it may ask for and use (docs/decisions.md "Scope
   * ceilings"); empty means every scope the server knows. Set by the operator only.
   */
  readonly scopes: readonly string[];
  readonly createdAt: number;
}

export type RememberConsent = 'never' | 'same-scope';

/** An owner's consent to one client, remembered: requests within `scope` are not asked again. */
export interface RememberedConsent {
  readonly ownerId: string;
  readonly clientKey: string;
  /** Space-separated scope names the owner allowed. */
  readonly scope: string;
  readonly since: number;
}

/** Which of a client's credentials a rotation replaced. */
export type CredentialKind = 'secret' | 'public-key';

/**
 * A client credential replaced with an overlap (docs/decisions.md "Rotation with overlap"):
 * still accepted until `until`, after which a request signed with it is refused and told it
 * was rotated away.
 */
export interface PreviousCredential {
  readonly clientKey: string;
  readonly kind: CredentialKind;
  /** The previous shared secret, or the previous public key (PEM). */
  readonly value: string;
  readonly replacedAt: number;
  /** The end of the overlap: accepted while now < until. */
  readonly until: number;
  /** When the end of the overlap was recorded (upkeep), or null before. */
  readonly endedAt: number | null;
  /** The last request it signed that was accepted, or null (written in batches). */
  readonly lastUsedAt: number | null;
}

/** A previous credential accepted at `at` (written with the next batch). */
export interface PreviousCredentialUse {
  readonly clientKey: string;
  readonly kind: CredentialKind;
  readonly at: number;
}

/** A client to store; `createdAt` defaults to the store's clock (set when importing). */
export type NewClient = Omit<
  Client,
  | 'createdAt'
  | 'sessionExtension'
  | 'requestsPerMinute'
  | 'failuresPerMinute'
  | 'rememberConsent'
  | 'tokenResponseIdentity'
  | 'scopes'
> & {
  readonly createdAt?: number | undefined;
  /** Default false. */
  readonly sessionExtension?: boolean | undefined;
  /** Default 'never'. */
  readonly rememberConsent?: RememberConsent | undefined;
  /** Default false. */
  readonly tokenResponseIdentity?: boolean | undefined;
  /** Default none: every scope the server knows. */
  readonly scopes?: readonly string[] | undefined;
};

export type ClientChanges = Partial<
  Pick<
    Client,
    | 'name'
    | 'description'
    | 'website'
    | 'callbacks'
    | 'signatureMethods'
    | 'publicKey'
    | 'constrainedDevice'
    | 'verified'
    | 'disabled'
    | 'sessionExtension'
    | 'requestsPerMinute'
    | 'failuresPerMinute'
    | 'rememberConsent'
    | 'tokenResponseIdentity'
    | 'scopes'
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
  /**
   * The User-Agent of the first verified request made with it (trimmed, capped), written
   * once with the batched last use; null until then, or when that request sent none.
   */
  readonly deviceHint: string | null;
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
  'lastUsedAt' | 'deviceHint' | 'revokedAt' | 'sessionHandleHash' | 'sessionExpiresAt'
> &
  Partial<Pick<TokenCredential, 'sessionHandleHash' | 'sessionExpiresAt'>>;

/** What makes a nonce unique (§3.3): timestamp, client, token and the nonce itself. */
export interface NonceKey {
  readonly clientKey: string;
  /** '' when the request carries no token. */
  readonly token: string;
  readonly timestamp: number;
  readonly nonce: string;
}

/** A signed-in owner's browser session (web pages). */
export interface Session {
  readonly id: string;
  readonly ownerId: string;
  readonly createdAt: number;
  readonly expiresAt: number;
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
