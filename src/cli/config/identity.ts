/**
 * The settings of the owners' side of the pages: the cookie secret of their sessions, and where
 * they sign in (Latchkey's own accounts, the team's OpenID Connect provider, or the team's
 * login app; docs/identity.md).
 */
import { enumeration, integer, optional, SettingProblem, text } from './config-values.ts';
import type { Setting } from './config-values.ts';
import {
  DEFAULT_NAME_CLAIMS,
  DEFAULT_OIDC_SCOPES,
  issuerProblem,
} from '../../provider/accounts/identity.ts';
import { DEFAULT_BROWSER_SESSION_LIFETIME_SECONDS } from '../../web/sessions.ts';

/** An OpenID Connect issuer: https, or http on loopback only. */
function oidcIssuer(raw: unknown): string {
  if (typeof raw !== 'string') throw new SettingProblem('must be a URL');
  const problem = issuerProblem(raw);
  if (problem !== undefined) throw new SettingProblem(problem);
  return raw;
}

/** A page to send a browser to: http(s), a query allowed, no fragment. */
function pageUrl(raw: unknown): string {
  let url: URL | undefined;
  try {
    url = typeof raw === 'string' ? new URL(raw) : undefined;
  } catch {
    url = undefined;
  }
  if (url === undefined || !/^https?:$/.test(url.protocol) || url.hash !== '') {
    throw new SettingProblem('must be an absolute http or https URL without a fragment');
  }
  return raw as string;
}

/** Claim names, from an array or a comma-separated string. */
function claimList(raw: unknown): string[] {
  const items = Array.isArray(raw)
    ? raw
    : typeof raw === 'string'
      ? raw.split(',').map((item) => item.trim())
      : [];
  if (
    items.length === 0 ||
    !items.every((item) => typeof item === 'string' && /^[\x21-\x7e]{1,64}$/.test(item))
  ) {
    throw new SettingProblem('must be a comma-separated list of claim names');
  }
  return items as string[];
}

export const identitySettings = {
  /**
   * Signs the session cookie of the authorization pages; at least 32 characters. Unset, a
   * random secret is made at each start, so owners sign in again after a restart; set the same
   * value on every instance behind a load balancer. No flag: a command line is visible to
   * every user of the machine.
   */
  sessionSecret: {
    env: 'LATCHKEY_SESSION_SECRET',
    flag: undefined,
    summary: 'cookie signing secret (at least 32 characters)',
    default: undefined,
    parse: optional(text(/^.{32,}$/su, 'at least 32 characters')),
    secret: true,
  },
  /**
   * How long an owner's sign-in on the pages lasts, in seconds (the session cookie and the
   * stored session both end then; docs/pages.md). Not the session extension's sessions of
   * renewals (`sessionExtensionLifetimeSeconds`).
   */
  browserSessionLifetimeSeconds: {
    env: 'LATCHKEY_BROWSER_SESSION_LIFETIME',
    flag: '--browser-session-lifetime <seconds>',
    summary: 'how long a sign-in on the pages lasts, seconds',
    default: DEFAULT_BROWSER_SESSION_LIFETIME_SECONDS,
    parse: integer(60, 30 * 86400),
  },
  /**
   * Where resource owners come from (docs/identity.md): `local` (Latchkey's own accounts,
   * made with `latchkey users add`), `oidc` (the team's OpenID Connect provider: set the
   * `oidc.*` settings) or `delegated` (the team's own login app, which accepts a login
   * challenge through `POST /admin/login/accept`: set `delegated.loginUrl` and
   * `delegated.adminToken`). Owners from `oidc` and `delegated` are created on their first
   * sign-in and have no Latchkey password.
   */
  'identity.source': {
    env: 'LATCHKEY_IDENTITY',
    flag: '--identity <source>',
    summary: 'where owners sign in: local, oidc or delegated',
    default: 'local',
    parse: enumeration(['local', 'oidc', 'delegated'] as const),
  },
  /**
   * With `identity.source` `oidc`: the issuer URL of the OpenID Connect provider (discovered
   * at `{issuer}/.well-known/openid-configuration`). https, or http on loopback only.
   * Register `{publicUrl}/signin/oidc/callback` as the redirect URI at the provider.
   */
  'oidc.issuer': {
    env: 'LATCHKEY_OIDC_ISSUER',
    flag: '--oidc-issuer <url>',
    summary: 'OpenID Connect issuer URL',
    default: undefined,
    parse: optional(oidcIssuer),
  },
  /** With `oidc`: the client id Latchkey was registered with at the OpenID Connect provider. */
  'oidc.clientId': {
    env: 'LATCHKEY_OIDC_CLIENT_ID',
    flag: '--oidc-client-id <id>',
    summary: 'OpenID Connect client id',
    default: undefined,
    parse: optional(text(/^[\x21-\x7e]{1,255}$/, 'visible ASCII, 1-255 characters')),
  },
  /**
   * With `oidc`: the client secret (`client_secret_basic`). Unset: Latchkey is a public
   * client and relies on PKCE alone. No flag: a command line is visible to every user of the
   * machine.
   */
  'oidc.clientSecret': {
    env: 'LATCHKEY_OIDC_CLIENT_SECRET',
    flag: undefined,
    summary: 'OpenID Connect client secret',
    default: undefined,
    parse: optional(text(/^.{1,1024}$/su, '1-1024 characters')),
    secret: true,
  },
  /** With `oidc`: the scopes asked for, space-separated (`openid` is always included). */
  'oidc.scopes': {
    env: 'LATCHKEY_OIDC_SCOPES',
    flag: '--oidc-scopes <scopes>',
    summary: 'OpenID Connect scopes, space-separated',
    default: DEFAULT_OIDC_SCOPES,
    parse: text(
      /^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/,
      'space-separated scope names',
    ),
  },
  /**
   * With `oidc`: the ID token claims tried in turn for an owner's display name,
   * comma-separated; the subject is shown when none is present.
   */
  'oidc.nameClaims': {
    env: 'LATCHKEY_OIDC_NAME_CLAIMS',
    flag: '--oidc-name-claims <claims>',
    summary: 'claims giving the display name, in order',
    default: [...DEFAULT_NAME_CLAIMS],
    parse: claimList,
  },
  /**
   * With `identity.source` `delegated`: the login app's page. A signed-out owner is sent to
   * `{loginUrl}?login_challenge=…`; the app signs the person in its own way, then calls
   * `POST /admin/login/accept` (docs/identity.md).
   */
  'delegated.loginUrl': {
    env: 'LATCHKEY_LOGIN_URL',
    flag: '--login-url <url>',
    summary: 'delegated: the login app URL',
    default: undefined,
    parse: optional(pageUrl),
  },
  /**
   * With `delegated`: the bearer token the login app sends to `/admin/login/accept` and
   * `/admin/login/reject`; at least 32 characters. No flag: a command line is visible to
   * every user of the machine.
   */
  'delegated.adminToken': {
    env: 'LATCHKEY_ADMIN_TOKEN',
    flag: undefined,
    summary: 'delegated: admin API bearer token (at least 32 characters)',
    default: undefined,
    parse: optional(text(/^[\x21-\x7e]{32,}$/, 'at least 32 visible ASCII characters')),
    secret: true,
  },
} as const satisfies Record<string, Setting<unknown>>;
