/**
 * The spec requires the three endpoint URIs to be advertised but leaves how open (§1 item 6).
 * One machine-readable JSON document at a well-known path (RFC 8615), also printed at start-up.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Provider } from '../../provider/index.ts';
import { defaultPaths } from '../options.ts';
import type { FlowPaths } from '../options.ts';

export const ADVERTISEMENT_PATH = '/.well-known/oauth1-provider';

export interface Advertisement {
  readonly issuer: string;
  readonly request_token_endpoint: string;
  readonly authorization_endpoint: string;
  readonly token_endpoint: string;
  /** POST, signed with the token it ends. */
  readonly token_invalidation_endpoint: string;
  readonly protected_resource_example: string;
  readonly signature_methods_supported: string[];
  readonly scopes_supported: Record<string, string>;
  readonly timestamp_window_seconds: number;
  readonly realm: string;
}

export function advertise(
  baseUrl: string,
  provider: Provider,
  configured: Partial<FlowPaths>,
): Advertisement {
  const paths: FlowPaths = { ...defaultPaths, ...configured };
  const base = baseUrl.replace(/\/$/, '');
  return {
    issuer: base,
    request_token_endpoint: base + paths.requestToken,
    authorization_endpoint: base + paths.authorize,
    token_endpoint: base + paths.accessToken,
    token_invalidation_endpoint: base + paths.invalidateToken,
    protected_resource_example: `${base}/api/me`,
    signature_methods_supported: provider.policy.signatureMethods.names(),
    scopes_supported: { ...provider.policy.scopes },
    timestamp_window_seconds: provider.policy.timestampWindowSeconds,
    realm: provider.policy.realm,
  };
}

export function registerAdvertisement(
  app: FastifyInstance,
  provider: Provider,
  paths: FlowPaths,
  baseUrlOf: (request: FastifyRequest) => string,
): void {
  app.get(ADVERTISEMENT_PATH, async function advertiseEndpoints(request) {
    return advertise(baseUrlOf(request), provider, paths);
  });
}
