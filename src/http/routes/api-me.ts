/**
 * `/api/me`: the protected resource every deployment has, for checking credentials and
 * diagnosing a client. Any method; a request signed by the client alone is accepted
 * (owner null). The owner is given by its subject in its identity source (docs/identity.md)
 * and its display name. It echoes the non-protocol parameters the signature covered, decoded.
 */
import type { FastifyInstance } from 'fastify';
import type { Provider } from '../../provider/index.ts';
import { toIncomingRequest } from '../incoming-request.ts';
import { setRateLimitHeaders } from '../rate-limit-headers.ts';
import type { TransportSettings } from '../incoming-request.ts';
import { SIGNED, signedRequestRefusals, TAGS } from '../route-schemas.ts';

/** [name, value] pairs, decoded, in the order sent. */
const decodedParameters = {
  type: 'array',
  items: {
    type: 'array',
    prefixItems: [{ type: 'string' }, { type: 'string' }],
    minItems: 2,
    maxItems: 2,
  },
} as const;

const schema = {
  tags: [TAGS.resources],
  summary: 'Who is calling',
  description:
    'The protected resource every deployment has, for checking credentials and diagnosing a client: any method, signed by the client with a token, or by the client alone (owner null). It echoes the non-protocol parameters the signature covered, decoded.',
  security: SIGNED,
  response: {
    200: {
      description: 'The verified caller.',
      content: {
        'application/json': {
          schema: {
            type: 'object',
            properties: {
              client: {
                type: 'object',
                properties: { key: { type: 'string' }, name: { type: 'string' } },
              },
              owner: {
                type: ['object', 'null'],
                description: 'The owner the client acts for; null when signed by the client alone.',
                properties: {
                  id: { type: 'string' },
                  subject: { type: 'string' },
                  name: { type: 'string' },
                  source: { type: 'string', enum: ['local', 'oidc', 'delegated'] },
                },
              },
              scope: {
                type: ['string', 'null'],
                description: "The token's scope, space-separated; null without a token.",
              },
              method: { type: 'string' },
              query: decodedParameters,
              form: decodedParameters,
              header: {
                ...decodedParameters,
                description:
                  'Non-protocol Authorization header parameters that are not also in the query or body (RFC 5849 §3.4.1.3.1 signs them).',
              },
            },
            required: ['client', 'owner', 'scope', 'method', 'query', 'form', 'header'],
          },
        },
      },
    },
    ...signedRequestRefusals,
  },
};

export function registerApiMe(
  app: FastifyInstance,
  provider: Provider,
  transport: TransportSettings,
): void {
  app.all('/api/me', { schema }, async function describeCaller(request, reply) {
    const verified = await provider.verifyResourceRequest(toIncomingRequest(request, transport), {
      tokenRequired: false,
    });
    const { caller } = verified;
    setRateLimitHeaders(verified.rateLimit, (name, value) => reply.header(name, value));
    // Spec "Server obligations": keep authenticated content out of shared caches.
    return reply.header('cache-control', 'no-store').send({
      client: caller.client,
      owner: caller.owner,
      scope: caller.scope,
      method: request.method,
      query: verified.parameters.query,
      form: verified.parameters.form,
      header: verified.parameters.header,
    });
  });
}
