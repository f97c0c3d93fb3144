/** Options every middleware adapter takes. */
import type { Provider, ResourceOptions } from '../../provider/index.ts';
import type { TransportSettings } from '../incoming-request.ts';

export interface MiddlewareOptions extends ResourceOptions {
  /** A provider on the same store as the Latchkey server (tokens and nonces are shared). */
  readonly provider: Provider;
  /** Follow Forwarded / X-Forwarded-* for the base string URI (only behind a proxy you run). */
  readonly trustProxy?: boolean | undefined;
  /** The app serves HTTPS itself. */
  readonly tls?: boolean | undefined;
  /** Accept PLAINTEXT over plain HTTP off loopback. */
  readonly insecureHttp?: boolean | undefined;
  /**
   * Take Basic LTI 1.1 launches (docs/lti.md): the LMS as the caller, the launch beside it
   * (`request.lti`), a failed launch answered for a person (back to the LMS or an error page).
   */
  readonly lti?: boolean | undefined;
  /** Largest form body read for verification, in bytes (default 64 KiB). */
  readonly bodyLimit?: number | undefined;
}

export { DEFAULT_BODY_LIMIT } from '../options.ts';

export function transportOf(options: MiddlewareOptions): TransportSettings {
  return {
    tls: options.tls ?? false,
    trustProxy: options.trustProxy ?? false,
    insecureHttp: options.insecureHttp ?? false,
  };
}

export function resourceOf(options: ResourceOptions): ResourceOptions {
  return {
    tokenRequired: options.tokenRequired,
    scope: options.scope,
    requireBodyHash: options.requireBodyHash,
  };
}
