/**
 * Sign-in at the team's OpenID Connect provider, through openid-client (panva): discovery,
 * the authorization code flow with PKCE (S256), `state` and `nonce`, and the ID token's
 * validation (signature, issuer, audience, expiry, nonce) are the library's. Latchkey keeps
 * the state, nonce and PKCE verifier in a login challenge (src/provider/accounts/logins.ts), bound to
 * the browser. Every failure of the provider (down, slow, answering garbage, refusing) is an
 * IdentityProviderError, which the pages show as a clear page; nothing is approved.
 */
import * as oidc from 'openid-client';
import { DEFAULT_NAME_CLAIMS, DEFAULT_OIDC_SCOPES } from '../../provider/index.ts';
import type { OidcIdentity } from '../../provider/index.ts';

/** Seconds to wait for any answer of the identity provider (discovery, token, keys). */
const TIMEOUT_SECONDS = 10;

export type IdentityProviderFailure =
  /** Discovery or a later request failed: down, slow, or not an OpenID Connect provider. */
  | 'unreachable'
  /** It answered, but the answer did not validate (a bad ID token, a wrong issuer…). */
  | 'invalid'
  /** It sent the person back with an error (`access_denied` when they cancelled). */
  | 'refused';

export class IdentityProviderError extends Error {
  override readonly name = 'IdentityProviderError';
  readonly failure: IdentityProviderFailure;

  constructor(failure: IdentityProviderFailure, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.failure = failure;
  }
}

/** What the challenge keeps for the callback. */
export interface OidcChecks {
  readonly nonce: string;
  readonly codeVerifier: string;
}

/** What the authorization page asks of the identity source (docs/identity.md "Sign in with"). */
export interface SignInHint {
  /** Sign the person in again, even with a live session at the source. */
  readonly forceLogin?: boolean | undefined;
  /** Who is expected to sign in (`screen_name`): pre-fills the source's form. */
  readonly loginHint?: string | undefined;
}

export interface OidcPerson {
  readonly issuer: string;
  readonly subject: string;
  readonly name: string | undefined;
}

function failureOf(error: unknown): IdentityProviderFailure {
  if (error instanceof oidc.AuthorizationResponseError) return 'refused';
  if (error instanceof oidc.ResponseBodyError) return 'unreachable';
  const code = (error as { code?: unknown } | undefined)?.code;
  // oauth4webapi's validation failures (OAUTH_*) and JOSE errors (ERR_JW*): the answer came,
  // and it was wrong.
  if (typeof code === 'string' && /^(OAUTH_|ERR_JW)/.test(code) && !/RESPONSE_IS_NOT/.test(code)) {
    return 'invalid';
  }
  return 'unreachable';
}

/** The code exchanged for tokens, the ID token validated by the library. */
async function exchangeCode(
  config: oidc.Configuration,
  callbackUrl: URL,
  state: string,
  checks: OidcChecks,
): Promise<{
  readonly claims: oidc.IDToken | undefined;
  readonly accessToken: string | undefined;
}> {
  try {
    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: checks.codeVerifier,
      expectedState: state,
      expectedNonce: checks.nonce,
      idTokenExpected: true,
    });
    return { claims: tokens.claims(), accessToken: tokens.access_token };
  } catch (error) {
    const failure = failureOf(error);
    const messages: Record<IdentityProviderFailure, string> = {
      unreachable: 'The sign-in service did not answer, or its answer could not be read.',
      invalid: 'The sign-in service’s answer did not pass the checks, so it was not trusted.',
      refused: 'The sign-in service did not sign you in.',
    };
    throw new IdentityProviderError(failure, messages[failure], error);
  }
}

export function createOidcSignIn(identity: OidcIdentity) {
  const scopes = new Set(['openid', ...(identity.scopes ?? DEFAULT_OIDC_SCOPES).split(' ')]);
  const nameClaims = identity.nameClaims ?? DEFAULT_NAME_CLAIMS;
  let configuration: Promise<oidc.Configuration> | undefined;

  /** Discovered once, then kept; a failed discovery is tried again on the next sign-in. */
  function configured(): Promise<oidc.Configuration> {
    configuration ??= (async () => {
      const issuer = new URL(identity.issuer);
      // The configuration refuses any other http issuer (provider/accounts/identity.ts issuerProblem).
      const insecure = issuer.protocol === 'http:';
      return oidc.discovery(
        issuer,
        identity.clientId,
        identity.clientSecret,
        identity.clientSecret === undefined ? oidc.None() : undefined,
        { execute: insecure ? [oidc.allowInsecureRequests] : [], timeout: TIMEOUT_SECONDS },
      );
    })().catch((error: unknown) => {
      configuration = undefined;
      throw new IdentityProviderError(
        'unreachable',
        'The sign-in service did not answer its discovery request.',
        error,
      );
    });
    return configuration;
  }

  return {
    /** Discovers the provider (so a down provider fails before anything is stored) and returns fresh checks. */
    async prepare(): Promise<OidcChecks> {
      await configured();
      return { nonce: oidc.randomNonce(), codeVerifier: oidc.randomPKCECodeVerifier() };
    },

    /**
     * Where to send the browser: the provider's authorization endpoint with every check.
     * `hint.forceLogin` asks the provider to sign the person in again (`prompt=login`), and
     * `hint.loginHint` names who is expected (`login_hint`; OpenID Connect Core §3.1.2.1).
     */
    async authorizationUrl(
      redirectUri: string,
      state: string,
      checks: OidcChecks,
      hint: SignInHint = {},
    ): Promise<URL> {
      const config = await configured();
      return oidc.buildAuthorizationUrl(config, {
        ...(hint.forceLogin === true ? { prompt: 'login' } : {}),
        ...(hint.loginHint === undefined ? {} : { login_hint: hint.loginHint }),
        redirect_uri: redirectUri,
        scope: [...scopes].join(' '),
        response_type: 'code',
        code_challenge: await oidc.calculatePKCECodeChallenge(checks.codeVerifier),
        code_challenge_method: 'S256',
        state,
        nonce: checks.nonce,
      });
    },

    /**
     * The browser is back at `callbackUrl` (the redirect URI with the provider's query): the
     * code is exchanged and the ID token validated by the library; returns who signed in.
     */
    async finish(callbackUrl: URL, state: string, checks: OidcChecks): Promise<OidcPerson> {
      const config = await configured();
      const { claims, accessToken } = await exchangeCode(config, callbackUrl, state, checks);
      if (claims === undefined) {
        throw new IdentityProviderError('invalid', 'The sign-in service sent no ID token.');
      }
      const nameIn = (source: Readonly<Record<string, unknown>>) =>
        nameClaims
          .map((claim) => source[claim])
          .find((value): value is string => typeof value === 'string' && value.trim() !== '');
      let name = nameIn(claims);
      // Many providers put profile claims only in UserInfo for the code flow (OpenID Connect
      // Core §5.4): ask it, for the name only. The sign-in stands on the ID token; a failing
      // UserInfo leaves the subject as the name.
      if (name === undefined && accessToken !== undefined) {
        if (config.serverMetadata().userinfo_endpoint !== undefined) {
          name = await oidc
            .fetchUserInfo(config, accessToken, claims.sub)
            .then(nameIn, () => undefined);
        }
      }
      return { issuer: claims.iss, subject: claims.sub, name };
    },
  };
}

export type OidcSignIn = ReturnType<typeof createOidcSignIn>;
