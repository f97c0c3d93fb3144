/**
 * The service's rules that an operator may tune, with documented defaults. Every "not shown"
 * of the spec that is a number lives here (docs/decisions.md explains each choice).
 */
import { SignatureMethodRegistry } from '../protocol/index.ts';

/** Password sign-in throttling on the pages (docs/security.md). */
export interface SignInLimits {
  /**
   * Sign-in attempts for one account from one address within the window before that pair is
   * paused (with backoff: twice as many per four windows, four times per sixteen).
   */
  readonly perAccountAddress: number;
  /**
   * Sign-in steps from one address within the window, all accounts and every sign-in surface
   * together (password posts, login challenges started, returns from the identity source).
   */
  readonly perAddress: number;
  readonly windowSeconds: number;
}

export interface Policy {
  /** Accepted clock difference either way, in seconds (§3.3 leaves it to the server). */
  readonly timestampWindowSeconds: number;
  /** Lifetime of temporary credentials from issue to exchange (§2.1 recommends expiry). */
  readonly temporaryCredentialLifetimeSeconds: number;
  /** Default lifetime of token credentials, or null for "until revoked". */
  readonly tokenLifetimeSeconds: number | null;
  /** Wrong verifiers tolerated before the temporary credential is discarded. */
  readonly maxVerifierFailures: number;
  /** The signature methods this server accepts. */
  readonly signatureMethods: SignatureMethodRegistry;
  /** The realm sent in `WWW-Authenticate`. */
  readonly realm: string;
  /** Known scopes and the plain words the consent page shows for each. */
  readonly scopes: Readonly<Record<string, string>>;
  /** The scope granted when a client asks for none. */
  readonly defaultScope: string;
  /** Longest identifier, token, nonce or verifier accepted, in bytes. */
  readonly maxValueBytes: number;
  /** Most parameters (query, form body and protocol together) one request may carry. */
  readonly maxParameters: number;
  /**
   * Session extension: lifetime of each token credential of a session, in seconds; the
   * client renews it with its session handle (docs/decisions.md).
   */
  readonly sessionTokenLifetimeSeconds: number;
  /**
   * Session extension: how long a session lasts when the owner approved access with no end,
   * in seconds (a session handle renews tokens; it is not kept valid forever). Not the
   * owner's browser session on the pages (src/web/sessions.ts).
   */
  readonly sessionExtensionLifetimeSeconds: number;
  /** Password sign-in throttling on the pages. */
  readonly signIn: SignInLimits;
  /**
   * Protected-resource requests one client may make per minute, unless the client has its own
   * limit (`latchkey clients update --requests-per-minute`): a backstop a normal client never
   * meets. Over it: 429 `rate_limit_exceeded` with Retry-After.
   */
  readonly requestsPerMinute: number;
  /**
   * Failed verifications per minute for one client key from one address, unless the client
   * has its own limit; over it, that source is refused (429) until the minute ends.
   */
  readonly failuresPerMinute: number;
  /** How long the audit trail keeps an event, in days; older ones go with maintenance. */
  readonly auditRetentionDays: number;
}

/** What an embedder or the CLI may override: any rule, and any sign-in limit alone. */
export type PolicyOverrides = Partial<Omit<Policy, 'signIn'>> & {
  readonly signIn?: Partial<SignInLimits> | undefined;
};

export const defaultPolicy: Policy = {
  timestampWindowSeconds: 300,
  temporaryCredentialLifetimeSeconds: 600,
  tokenLifetimeSeconds: null,
  maxVerifierFailures: 5,
  signatureMethods: new SignatureMethodRegistry(),
  realm: 'Latchkey',
  scopes: {
    read: 'See your profile and read your data',
    write: 'Create, change and delete your data',
  },
  defaultScope: 'read write',
  maxValueBytes: 255,
  maxParameters: 1000,
  sessionTokenLifetimeSeconds: 3600,
  sessionExtensionLifetimeSeconds: 365 * 24 * 3600,
  // perAddress: an office behind one NAT signs many people in (docs/security.md).
  signIn: { perAccountAddress: 5, perAddress: 300, windowSeconds: 900 },
  requestsPerMinute: 3_000_000,
  failuresPerMinute: 600,
  auditRetentionDays: 365,
};

export function resolvePolicy(overrides: PolicyOverrides = {}): Policy {
  const policy: Policy = {
    ...defaultPolicy,
    ...overrides,
    signIn: { ...defaultPolicy.signIn, ...overrides.signIn },
  };
  if (!(policy.timestampWindowSeconds > 0))
    throw new TypeError('timestampWindowSeconds must be > 0');
  if (!(policy.temporaryCredentialLifetimeSeconds > 0)) {
    throw new TypeError('temporaryCredentialLifetimeSeconds must be > 0');
  }
  if (!(policy.sessionTokenLifetimeSeconds > 0))
    throw new TypeError('sessionTokenLifetimeSeconds must be > 0');
  if (!(policy.sessionExtensionLifetimeSeconds > 0))
    throw new TypeError('sessionExtensionLifetimeSeconds must be > 0');
  for (const name of ['perAccountAddress', 'perAddress', 'windowSeconds'] as const) {
    if (!(policy.signIn[name] > 0)) throw new TypeError(`signIn.${name} must be > 0`);
  }
  if (!(policy.requestsPerMinute >= 1)) throw new TypeError('requestsPerMinute must be >= 1');
  if (!(policy.failuresPerMinute >= 1)) throw new TypeError('failuresPerMinute must be >= 1');
  return policy;
}
