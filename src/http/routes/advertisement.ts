/**
 * The spec requires the three endpoint URIs to be advertised but leaves how open (§1 item 6).
 * One machine-readable JSON document at a well-known path (RFC 8615), also printed at start-up.
 */
import type { FastifyInstance } from 'fastify';
import type { Provider } from '../../provider/index.ts';
import { defaultPaths } from '../options.ts';
import type { FlowPaths } from '../options.ts';
import { OPENAPI_PATH } from '../openapi.ts';
import { publicBaseUrl } from '../public-url.ts';
import type { PublicOrigin } from '../public-url.ts';
import { TAGS } from '../route-schemas.ts';

export const ADVERTISEMENT_PATH = '/.well-known/oauth1-provider';

export interface Advertisement {
  readonly issuer: string;
  readonly request_token_endpoint: string;
  readonly authorization_endpoint: string;
  /** "Sign in with": an owner who already allowed the client is sent straight back. */
  readonly authentication_endpoint: string;
  readonly token_endpoint: string;
  /** POST, signed with the token it ends. */
  readonly token_invalidation_endpoint: string;
  /** The OpenAPI 3.1 description of every endpoint (GET). */
  readonly openapi_document: string;
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
    authentication_endpoint: base + paths.authenticate,
    token_endpoint: base + paths.accessToken,
    token_invalidation_endpoint: base + paths.invalidateToken,
    openapi_document: base + OPENAPI_PATH,
    protected_resource_example: `${base}/api/me`,
    signature_methods_supported: provider.policy.signatureMethods.names(),
    scopes_supported: { ...provider.policy.scopes },
    timestamp_window_seconds: provider.policy.timestampWindowSeconds,
    realm: provider.policy.realm,
  };
}

const uri = { type: 'string', format: 'uri' } as const;

const schema = {
  tags: [TAGS.discovery],
  summary: 'Endpoint advertisement',
  description:
    'The endpoint URIs (RFC 5849 §1 item 6), the signature methods, scopes and timestamp window, at a well-known location (RFC 8615).',
  response: {
    200: {
      description: 'The advertisement.',
      content: {
        'application/json': {
          schema: {
            type: 'object',
            properties: {
              issuer: uri,
              request_token_endpoint: uri,
              authorization_endpoint: uri,
              authentication_endpoint: uri,
              token_endpoint: uri,
              token_invalidation_endpoint: uri,
              openapi_document: uri,
              protected_resource_example: uri,
              signature_methods_supported: { type: 'array', items: { type: 'string' } },
              scopes_supported: { type: 'object', additionalProperties: { type: 'string' } },
              timestamp_window_seconds: { type: 'integer' },
              realm: { type: 'string' },
            },
            required: [
              'issuer',
              'request_token_endpoint',
              'authorization_endpoint',
              'authentication_endpoint',
              'token_endpoint',
              'token_invalidation_endpoint',
              'openapi_document',
            ],
          },
        },
      },
    },
  },
};

/**
 * GET /.well-known/oauth1-provider. Built from the configured public URL, or else the address
 * the server listens on, and never from `Host`, `X-Forwarded-Host` or `Forwarded`
 * (public-url.ts): a shared cache would otherwise keep one requester's host for everyone.
 * `no-store` as well, since the fallback differs by interface.
 */
export function registerAdvertisement(
  app: FastifyInstance,
  provider: Provider,
  paths: FlowPaths,
  origin: PublicOrigin,
): void {
  app.get(ADVERTISEMENT_PATH, { schema }, async function advertiseEndpoints(request, reply) {
    void reply.header('cache-control', 'no-store');
    return advertise(publicBaseUrl(request, origin), provider, paths);
  });
}
