/**
 * The settings of the provider's rules (src/provider/policy.ts, whose `defaultPolicy` gives
 * every default): the timestamp window, lifetimes, the session extension, signature
 * methods, scopes, the realm, the audit trail and sign-in throttling.
 */
import { builtInSignatureMethods } from '../../protocol/signature-methods.ts';
import { defaultPolicy } from '../../provider/policy.ts';
import { integer, list, optional, SettingProblem, text } from './config-values.ts';
import type { Setting } from './config-values.ts';

const SCOPE_NAME = /^[\x21\x23-\x5b\x5d-\x7e]{1,64}$/;

/** `scopes`: names and the words the consent page shows (a JSON object, or its text). */
function scopeDefinitions(raw: unknown): Record<string, string> {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      value = undefined;
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SettingProblem(
      'must be a JSON object of scope names and descriptions, like {"photos": "See your photos"}',
    );
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) throw new SettingProblem('must define at least one scope');
  for (const [name, description] of entries) {
    if (!SCOPE_NAME.test(name)) {
      throw new SettingProblem(
        `scope name ${JSON.stringify(name.slice(0, 70))} must be 1 to 64 printable ASCII characters without spaces, quotes or backslashes`,
      );
    }
    if (
      typeof description !== 'string' ||
      description.trim() === '' ||
      description.length > 200 ||
      /\p{Cc}/u.test(description)
    ) {
      throw new SettingProblem(
        `the description of scope "${name}" must be text of 1 to 200 characters, shown on the consent page`,
      );
    }
  }
  return Object.fromEntries(entries) as Record<string, string>;
}

export const policySettings = {
  /**
   * How far, in seconds, a request's `oauth_timestamp` may be from the server's clock, either
   * way (RFC 5849 §3.3 leaves it to the server). Nonces are kept this long.
   */
  timestampWindowSeconds: {
    env: 'LATCHKEY_TIMESTAMP_WINDOW',
    flag: '--timestamp-window <seconds>',
    summary: 'accepted clock difference, seconds',
    default: defaultPolicy.timestampWindowSeconds,
    parse: integer(1, 86400),
  },
  /**
   * Days the audit trail keeps a security event (sign-ins, grants, revocations, client
   * changes, imports, admin API actions; `latchkey audit`); older events are deleted by the
   * server's periodic maintenance.
   */
  auditRetentionDays: {
    env: 'LATCHKEY_AUDIT_RETENTION_DAYS',
    flag: '--audit-retention-days <days>',
    summary: 'days the audit trail keeps an event',
    default: defaultPolicy.auditRetentionDays,
    parse: integer(1, 36500),
  },
  /** Seconds a temporary credential lives between its issue and its exchange (RFC 5849 §2.1). */
  temporaryCredentialLifetimeSeconds: {
    env: 'LATCHKEY_TEMPORARY_CREDENTIAL_LIFETIME',
    flag: '--temporary-credential-lifetime <seconds>',
    summary: 'lifetime of temporary credentials, seconds',
    default: defaultPolicy.temporaryCredentialLifetimeSeconds,
    parse: integer(1, 86400),
  },
  /**
   * Default lifetime of token credentials, in seconds. Unset: a token lives until it is
   * revoked. The owner may choose a shorter lifetime on the consent page.
   */
  tokenLifetimeSeconds: {
    env: 'LATCHKEY_TOKEN_LIFETIME',
    flag: '--token-lifetime <seconds>',
    summary: 'default token lifetime, seconds (unset: until revoked)',
    default: undefined,
    parse: optional(integer(1, 10 * 365 * 86400)),
  },
  /**
   * Session extension (clients registered with `--session-extension`): the lifetime of each
   * token credential, in seconds; the client renews it with its session handle.
   */
  sessionTokenLifetimeSeconds: {
    env: 'LATCHKEY_SESSION_TOKEN_LIFETIME',
    flag: '--session-token-lifetime <seconds>',
    summary: 'session extension: token lifetime, seconds',
    default: defaultPolicy.sessionTokenLifetimeSeconds,
    parse: integer(60, 30 * 86400),
  },
  /**
   * Session extension (clients registered with `--session-extension`): how long a client's
   * session of renewals lasts, in seconds, when the owner approved access with no end (a
   * shorter lifetime the owner chose always wins). Not the owner's browser sign-in on the
   * pages (`browserSessionLifetimeSeconds`).
   */
  sessionExtensionLifetimeSeconds: {
    env: 'LATCHKEY_SESSION_EXTENSION_LIFETIME',
    flag: '--session-extension-lifetime <seconds>',
    summary: 'session extension: longest session, seconds',
    default: defaultPolicy.sessionExtensionLifetimeSeconds,
    parse: integer(60, 10 * 365 * 86400),
    formerly: {
      name: 'sessionLifetimeSeconds',
      env: 'LATCHKEY_SESSION_LIFETIME',
      flag: '--session-lifetime <seconds>',
    },
  },
  /**
   * The signature methods the server accepts, comma-separated (or a JSON array in the file).
   * The default is every built-in method; PLAINTEXT is still refused over plain HTTP off
   * loopback.
   */
  signatureMethods: {
    env: 'LATCHKEY_SIGNATURE_METHODS',
    flag: '--signature-methods <list>',
    summary: 'accepted signature methods, comma-separated',
    default: builtInSignatureMethods.map((method) => method.name),
    parse: list(builtInSignatureMethods.map((method) => method.name)),
  },
  /**
   * The scopes a client may ask for, each name with the plain words the consent page shows for
   * it: `{"photos": "See your photos", "photos.write": "Add and delete your photos"}`. They
   * replace the built-in `read` and `write` (list those too to keep them). A name is 1 to 64
   * printable ASCII characters without spaces, quotes or backslashes; a description 1 to 200
   * characters. A gateway rule's `scope` must name scopes defined here, or the server does
   * not start. A JSON object in the file, or the same JSON as the environment variable's text.
   */
  scopes: {
    env: 'LATCHKEY_SCOPES',
    flag: undefined,
    summary: 'scopes clients may ask for, with their consent-page words (JSON object)',
    default: defaultPolicy.scopes as Readonly<Record<string, string>>,
    parse: scopeDefinitions,
  },
  /**
   * The scope a token gets when its client asks for none: space-separated names of `scopes`.
   * Unset: every scope defined (with the built-in scopes, `read write`).
   */
  defaultScope: {
    env: 'LATCHKEY_DEFAULT_SCOPE',
    flag: '--default-scope <names>',
    summary: 'scope granted when a client asks for none (unset: every scope)',
    default: undefined,
    parse: optional(text(/^[\x20-\x7e]{0,1000}$/, 'space-separated scope names')),
  },
  /** The realm in `WWW-Authenticate: OAuth realm="…"` on 401 answers (RFC 5849 §3.5.1). */
  realm: {
    env: 'LATCHKEY_REALM',
    flag: '--realm <text>',
    summary: 'realm sent in WWW-Authenticate',
    default: defaultPolicy.realm,
    parse: text(/^[\x20-\x7e]{1,100}$/, 'printable ASCII, 1-100 characters', /["\\]/),
  },
  /**
   * Password sign-in attempts for one account from one address within `signIn.windowSeconds`
   * before that account is paused from that address only (the owner elsewhere still signs
   * in). The pause backs off: twice as many attempts per four windows, four times as many per
   * sixteen. A success clears the count.
   */
  'signIn.perAccountAddress': {
    env: 'LATCHKEY_SIGNIN_PER_ACCOUNT_ADDRESS',
    flag: '--signin-per-account-address <count>',
    summary: 'sign-in attempts per account and address per window',
    default: defaultPolicy.signIn.perAccountAddress,
    parse: integer(1, 1000),
  },
  /**
   * Sign-in steps from one address within `signIn.windowSeconds`, all accounts together
   * (429 above it): password posts, and with an identity source each sign-in started and
   * each return from it. Shared by every instance through Redis when the store has it. Set
   * for the largest office or campus that shares one public address.
   */
  'signIn.perAddress': {
    env: 'LATCHKEY_SIGNIN_PER_ADDRESS',
    flag: '--signin-per-address <count>',
    summary: 'sign-in steps per address per window',
    default: defaultPolicy.signIn.perAddress,
    parse: integer(1, 1_000_000),
  },
  /** The sign-in throttling window, in seconds. */
  'signIn.windowSeconds': {
    env: 'LATCHKEY_SIGNIN_WINDOW',
    flag: '--signin-window <seconds>',
    summary: 'sign-in throttling window, seconds',
    default: defaultPolicy.signIn.windowSeconds,
    parse: integer(1, 86400),
  },
} as const satisfies Record<string, Setting<unknown>>;
