/**
 * What the web pages need from the app (docs/pages.md): the provider, the flow paths, and
 * how to set cookies. Everything else has a documented default.
 */
import type { FastifyRequest } from 'fastify';
import { defaultPaths } from '../http/options.ts';
import { publicBaseUrl } from '../http/public-url.ts';
import { DEFAULT_BROWSER_SESSION_LIFETIME_SECONDS } from './sessions.ts';
import type { IdentityOptions, Provider, SignInLimits } from '../provider/index.ts';

export interface WebPaths {
  readonly requestToken?: string | undefined;
  readonly authorize?: string | undefined;
  readonly authenticate?: string | undefined;
  readonly accessToken?: string | undefined;
  readonly invalidateToken?: string | undefined;
}

export interface WebOptions {
  readonly provider: Provider;
  readonly paths?: WebPaths | undefined;
  /** Under TLS or a trusted https proxy: cookies get `Secure` and the `__Host-` prefix. */
  readonly secureCookies?: boolean | undefined;
  /** Keys the CSRF tokens; random per start when absent (open forms then fail after a restart). */
  readonly sessionSecret?: string | undefined;
  /**
   * How long an owner's browser sign-in lasts, in seconds (default
   * `DEFAULT_BROWSER_SESSION_LIFETIME_SECONDS`, 12 hours).
   */
  readonly browserSessionLifetimeSeconds?: number | undefined;
  /**
   * The public base URL for a request; from the app (its `publicUrl`, else the address it
   * listens on). Standalone, the listen address: never `Host` or `X-Forwarded-Host`.
   */
  readonly baseUrlOf?: ((request: FastifyRequest) => string) | undefined;
  /** Serve the front page at `/` (false in gateway mode, where `/` is the upstream API's). */
  readonly landingPage?: boolean | undefined;
  /**
   * Where owners sign in (docs/identity.md): Latchkey's own accounts (the default), the
   * team's OpenID Connect provider, or the team's login app through a login challenge.
   */
  readonly identity?: IdentityOptions | undefined;
}

export interface ResolvedWebOptions {
  readonly provider: Provider;
  readonly paths: {
    readonly requestToken: string;
    readonly authorize: string;
    readonly authenticate: string;
    readonly accessToken: string;
    readonly invalidateToken: string;
  };
  readonly secureCookies: boolean;
  readonly sessionSecret: string | undefined;
  readonly signIn: SignInLimits;
  readonly browserSessionLifetimeSeconds: number;
  readonly baseUrlOf: (request: FastifyRequest) => string;
  readonly identity: IdentityOptions;
}

export function resolveWebOptions(options: WebOptions): ResolvedWebOptions {
  return {
    provider: options.provider,
    paths: {
      requestToken: options.paths?.requestToken ?? defaultPaths.requestToken,
      authorize: options.paths?.authorize ?? defaultPaths.authorize,
      authenticate: options.paths?.authenticate ?? defaultPaths.authenticate,
      accessToken: options.paths?.accessToken ?? defaultPaths.accessToken,
      invalidateToken: options.paths?.invalidateToken ?? defaultPaths.invalidateToken,
    },
    secureCookies: options.secureCookies ?? false,
    sessionSecret: options.sessionSecret,
    signIn: options.provider.policy.signIn,
    browserSessionLifetimeSeconds:
      options.browserSessionLifetimeSeconds ?? DEFAULT_BROWSER_SESSION_LIFETIME_SECONDS,
    baseUrlOf: options.baseUrlOf ?? ((request) => publicBaseUrl(request)),
    identity: options.identity ?? { source: 'local' },
  };
}
