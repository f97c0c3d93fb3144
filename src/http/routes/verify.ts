/**
 * `POST /verify` (docs/edge.md): the verification API for a service in any language. The
 * service received a signed request and describes it — the method, the URL as the client
 * signed it, the Authorization header, and a form body when there is one — and Latchkey
 * verifies it exactly as `/api/me` would (signature, timestamp, nonce consumed once, token
 * standing), answering the verdict as JSON. The caller is the service, authenticated by a
 * configured bearer (`verifyToken`), compared in constant time.
 *
 *   200 {ok: true, client, owner: {subject, name} | null, scope, parameters}
 *   200 {ok: false, status, oauth_problem, message, www_authenticate?}
 *   401 the service's bearer missing or wrong; 400 a body that is not the shape; 415 not JSON.
 */
import type { FastifyInstance } from 'fastify';
import { isFormContentType, OAuthError } from '../../protocol/index.ts';
import type { IncomingRequest, Provider } from '../../provider/index.ts';
import { BearerRefusal, guardBearerService, refusal } from '../bearer-service.ts';
import { failureAnswer } from '../error-reply.ts';
import type { TransportSettings } from '../incoming-request.ts';
import { TAGS } from '../route-schemas.ts';

export interface VerifyApiOptions {
  /** The bearer a service sends (`Authorization: Bearer …`). */
  readonly token: string;
}

/** A described request is small: a URL, a header and a form body. */
const VERIFY_BODY_LIMIT = 64 * 1024;

/** `scheme://authority/path?query`: the URL as signed, its path and query kept byte for byte. */
const SIGNED_URL = /^(https?):\/\/([^/?#\s]+)(\/[^?#\s]*)?(?:\?([^#\s]*))?$/i;

const text = { type: 'string' } as const;
const pairs = {
  type: 'array',
  items: { type: 'array', prefixItems: [text, text], minItems: 2, maxItems: 2 },
} as const;

const schema = {
  tags: [TAGS.resources],
  summary: 'Verify a signed request a service received',
  description:
    'For a service in any language: describe the signed request it received (the method, the URL as the client signed it, the Authorization header, a form body), and Latchkey verifies it as /api/me would, the nonce consumed once. The verdict is 200 either way: `ok` says which.',
  security: [{ verifyToken: [] }],
  body: {
    type: 'object',
    properties: {
      method: { type: 'string', minLength: 1, maxLength: 32, description: 'e.g. GET' },
      url: {
        type: 'string',
        minLength: 1,
        maxLength: 8192,
        description: 'The absolute URL as the client signed it, query included.',
      },
      authorization: { type: 'string', maxLength: 8192 },
      body: {
        type: 'string',
        description:
          'The body as received (UTF-8 text): a form-encoded body, whose parameters are signed, or any other body, checked against oauth_body_hash when the request carries one.',
      },
      contentType: { type: 'string', maxLength: 256 },
      userAgent: {
        type: 'string',
        maxLength: 1024,
        description:
          "The request's User-Agent: the token's device hint (owners tell their tokens apart by it) when it has none yet.",
      },
      requireToken: {
        type: 'boolean',
        description: 'Refuse a request signed by the client alone (default false).',
      },
      scope: { type: 'string', description: 'Scope names the token must carry.' },
    },
    required: ['method', 'url'],
    additionalProperties: false,
  },
  response: {
    200: {
      description: 'The verdict.',
      content: {
        'application/json': {
          schema: {
            type: 'object',
            properties: {
              ok: { type: 'boolean' },
              client: { type: 'object', properties: { key: text, name: text } },
              owner: {
                type: ['object', 'null'],
                properties: { subject: text, name: text },
              },
              scope: { type: ['string', 'null'] },
              parameters: {
                type: 'object',
                properties: {
                  query: pairs,
                  form: pairs,
                  header: {
                    ...pairs,
                    description:
                      'Non-protocol Authorization header parameters that are not also in the query or body (RFC 5849 §3.4.1.3.1 signs them).',
                  },
                },
              },
              status: { type: 'integer', description: 'The status to answer the client with.' },
              oauth_problem: text,
              message: text,
              www_authenticate: text,
            },
            required: ['ok'],
          },
        },
      },
    },
    400: refusal('The body is not a described request (invalid_request).'),
    401: refusal('No valid service credential (invalid_token); `WWW-Authenticate: Bearer`.'),
    415: refusal('The body is not application/json (invalid_request).'),
    503: refusal('The store is unavailable (temporarily_unavailable); Retry-After.'),
  },
};

interface DescribedRequest {
  readonly method: string;
  readonly url: string;
  readonly authorization?: string;
  readonly body?: string;
  readonly contentType?: string;
  readonly userAgent?: string;
  readonly requireToken?: boolean;
  readonly scope?: string;
}

export async function registerVerifyApi(
  app: FastifyInstance,
  provider: Provider,
  options: VerifyApiOptions,
  transport: TransportSettings,
): Promise<void> {
  const realm = provider.policy.realm;

  await app.register(async function verifyApi(scope) {
    guardBearerService(scope, {
      token: options.token,
      realm: 'latchkey-verify',
      credential: 'service credential',
      name: 'verification API',
    });

    scope.addHook('preValidation', async function requireJson(request) {
      if (!/^application\/json\s*(;|$)/i.test(request.headers['content-type'] ?? '')) {
        throw new BearerRefusal(
          415,
          'invalid_request',
          'The body must be JSON (application/json).',
        );
      }
    });

    scope.post(
      '/verify',
      { schema, bodyLimit: VERIFY_BODY_LIMIT },
      async function verifyDescribed(request, reply) {
        const described = request.body as DescribedRequest;
        const parts = SIGNED_URL.exec(described.url);
        if (parts === null) {
          throw new BearerRefusal(
            400,
            'invalid_request',
            'url must be the absolute http or https URL the client signed, without a fragment.',
          );
        }
        const scheme = parts[1]!.toLowerCase();
        // A form's parameters are signed (§3.4.1.3.1); any other body is only hashed, when the
        // request carries oauth_body_hash (its bytes: the text as UTF-8).
        const form = isFormContentType(described.contentType);
        const incoming: IncomingRequest = {
          method: described.method,
          scheme,
          host: parts[2]!,
          path: parts[3] ?? '/',
          query: parts[4] ?? '',
          authorization: described.authorization,
          contentType: described.contentType,
          userAgent: described.userAgent,
          body: form ? described.body : undefined,
          rawBody:
            form || described.body === undefined ? undefined : Buffer.from(described.body, 'utf8'),
          secure: transport.insecureHttp || scheme === 'https',
        };
        reply.header('cache-control', 'no-store');
        try {
          const verified = await provider.verifyResourceRequest(incoming, {
            tokenRequired: described.requireToken ?? false,
            scope: described.scope,
            requireBodyHash: false,
          });
          const { caller } = verified;
          return await reply.send({
            ok: true,
            client: caller.client,
            owner:
              caller.owner === null
                ? null
                : { subject: caller.owner.subject, name: caller.owner.name },
            scope: caller.scope,
            parameters: verified.parameters,
          });
        } catch (error) {
          if (!(error instanceof OAuthError)) throw error;
          const answer = failureAnswer(error, realm);
          const challenge = answer.headers['www-authenticate'];
          return await reply.send({
            ok: false,
            status: error.status,
            oauth_problem: error.problem,
            message: error.message,
            ...(challenge === undefined ? {} : { www_authenticate: challenge }),
          });
        }
      },
    );
  });
}
