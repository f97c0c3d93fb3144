/**
 * Where owners come from: one choice per deployment (docs/identity.md). `local` is
 * Latchkey's own accounts (the default); `oidc` signs people in at the team's OpenID Connect
 * provider; `delegated` hands the sign-in to the team's own login app, which accepts or
 * rejects a login challenge through the admin API.
 */
import { isLoopback } from '../loopback.ts';

export interface LocalIdentity {
  readonly source: 'local';
}

export interface OidcIdentity {
  readonly source: 'oidc';
  /** The issuer URL, discovered at `{issuer}/.well-known/openid-configuration`. */
  readonly issuer: string;
  readonly clientId: string;
  /** Absent: a public client (PKCE only, no client authentication). */
  readonly clientSecret?: string | undefined;
  /** Space-separated; `openid` is always asked. Default `openid profile email`. */
  readonly scopes?: string | undefined;
  /** ID token claims tried in turn for the display name. Default `name`, `preferred_username`, `email`. */
  readonly nameClaims?: readonly string[] | undefined;
}

export interface DelegatedIdentity {
  readonly source: 'delegated';
  /** The login app's page; the browser is sent to `{loginUrl}?login_challenge=…`. */
  readonly loginUrl: string;
  /** What the login app sends as `Authorization: Bearer …` to the admin API; at least 32 characters. */
  readonly adminToken: string;
}

export type IdentityOptions = LocalIdentity | OidcIdentity | DelegatedIdentity;

export const DEFAULT_OIDC_SCOPES = 'openid profile email';
export const DEFAULT_NAME_CLAIMS: readonly string[] = ['name', 'preferred_username', 'email'];
export const MIN_ADMIN_TOKEN_LENGTH = 32;

/**
 * An issuer Latchkey may talk to: https, or http on loopback only (a test or a side-car IdP;
 * anything else would send the client secret and the ID token in clear). Returns the reason
 * it may not, or undefined.
 */
export function issuerProblem(issuer: string): string | undefined {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopback(url.hostname)) return undefined;
  return 'must be an https:// URL (http:// only on loopback)';
}
