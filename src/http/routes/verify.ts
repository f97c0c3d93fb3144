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
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { isFormContentType, OAuthError } from '../../protocol/index.ts';
import type { IncomingRequest, Provider } from '../../provider/index.ts';
import { StoreUnavailableError } from '../../provider/index.ts';
import { failureAnswer, STORE_OUTAGE_RETRY_AFTER_SECONDS } from '../error-reply.ts';
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

const digest = (value: string) => createHash('sha256').update(value).digest();

class ServiceRefusal extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const text = { type: 'string' } as const;
const pairs = {
  type: 'array',
  items: { type: 'array', prefixItems: [text, text], minItems: 2, maxItems: 2 },
} as const;

const refusal = (description: string) => ({
  description,
  content: {
    'application/json': {
      schema: {
        type: 'object',
        properties: { error: text, error_description: text },
        required: ['error', 'error_description'],
      },
    },
  },
});

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
              parameters: { type: 'object', properties: { query: pairs, form: pairs } },
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
  readonly requireToken?: boolean;
  readonly scope?: string;
}

export async function registerVerifyApi(
  app: FastifyInstance,
  provider: Provider,
  options: VerifyApiOptions,
  transport: TransportSettings,
): Promise<void> {
  const expected = digest(options.token);
  const realm = provider.policy.realm;

  await app.register(async function verifyApi(scope) {
    scope.setErrorHandler(async function serviceError(error, request, reply: FastifyReply) {
      let refusal: ServiceRefusal;
      if (error instanceof ServiceRefusal) refusal = error;
      else if (error instanceof StoreUnavailableError) {
        reply.header('retry-after', String(STORE_OUTAGE_RETRY_AFTER_SECONDS));
        refusal = new ServiceRefusal(503, 'temporarily_unavailable', 'The store is unavailable.');
      } else if ((error as { validation?: unknown }).validation !== undefined) {
        refusal = new ServiceRefusal(
          400,
          'invalid_request',
          (error as Error).message.slice(0, 200),
        );
      } else {
        const status = (error as { statusCode?: number }).statusCode ?? 500;
        if (status >= 500) request.log.error({ err: error }, 'verification API failed');
        refusal =
          status >= 500
            ? new ServiceRefusal(500, 'server_error', 'The request could not be completed.')
            : new ServiceRefusal(status, 'invalid_request', 'The request could not be read.');
      }
      if (refusal.status === 401) {
        reply.header('www-authenticate', 'Bearer realm="latchkey-verify", error="invalid_token"');
      }
      return reply
        .code(refusal.status)
        .header('cache-control', 'no-store')
        .send({ error: refusal.code, error_description: refusal.message });
    });

    scope.addHook('onRequest', async function checkServiceToken(request) {
      const match = /^Bearer +(\S+)\s*$/i.exec(request.headers.authorization ?? '');
      // Digests of equal length: the comparison takes the same time whatever was sent.
      if (match?.[1] === undefined || !timingSafeEqual(digest(match[1]), expected)) {
        throw new ServiceRefusal(401, 'invalid_token', 'A valid service credential is required.');
      }
    });

    scope.addHook('preValidation', async function requireJson(request) {
      if (!/^application\/json\s*(;|$)/i.test(request.headers['content-type'] ?? '')) {
        throw new ServiceRefusal(
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
          throw new ServiceRefusal(
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
