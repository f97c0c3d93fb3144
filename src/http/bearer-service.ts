// A small JSON API behind one bearer credential (the login admin API, the verification API):
// the credential checked once, in constant time, and every refusal in one shape,
// `{error, error_description}` with `WWW-Authenticate` on 401 (RFC 6750 §3).
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { StoreUnavailableError } from '../provider/index.ts';
import { STORE_OUTAGE_RETRY_AFTER_SECONDS } from './error-reply.ts';

/** A refusal of a bearer API: its status, its `error` code and a readable description. */
export class BearerRefusal extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export interface BearerServiceOptions {
  /** The credential callers send as `Authorization: Bearer …`. */
  readonly token: string;
  /** The realm named in `WWW-Authenticate`. */
  readonly realm: string;
  /** What the credential is, in the 401's description ("admin token"). */
  readonly credential: string;
  /** What the API is, in the log line of an unexpected failure ("admin API"). */
  readonly name: string;
  /** The API's own errors as refusals; undefined for the shared mapping. */
  readonly refusalOf?: (error: unknown) => BearerRefusal | undefined;
}

/** A refusal's description in a route schema (OpenAPI): the one shape every refusal has. */
export const refusal = (description: string) => ({
  description,
  content: {
    'application/json': {
      schema: {
        type: 'object',
        properties: { error: { type: 'string' }, error_description: { type: 'string' } },
        required: ['error', 'error_description'],
      },
    },
  },
});

// Digests of equal length: the comparison takes the same time whatever was sent.
const digest = (value: string) => createHash('sha256').update(value).digest();

/** Puts `scope` behind the credential and gives it the one refusal shape. */
export function guardBearerService(scope: FastifyInstance, options: BearerServiceOptions): void {
  const expected = digest(options.token);
  scope.setErrorHandler(async function bearerServiceError(error, request, reply: FastifyReply) {
    let refusal: BearerRefusal;
    const own = options.refusalOf?.(error);
    if (error instanceof BearerRefusal) refusal = error;
    else if (own !== undefined) refusal = own;
    else if (error instanceof StoreUnavailableError) {
      reply.header('retry-after', String(STORE_OUTAGE_RETRY_AFTER_SECONDS));
      refusal = new BearerRefusal(503, 'temporarily_unavailable', 'The store is unavailable.');
    } else if ((error as { validation?: unknown }).validation !== undefined) {
      // The route's schema refused the body; its message names the field.
      refusal = new BearerRefusal(400, 'invalid_request', (error as Error).message.slice(0, 200));
    } else {
      const status = (error as { statusCode?: number }).statusCode ?? 500;
      if (status >= 500) request.log.error({ err: error }, `${options.name} failed`);
      refusal =
        status >= 500
          ? new BearerRefusal(500, 'server_error', 'The request could not be completed.')
          : new BearerRefusal(status, 'invalid_request', 'The request could not be read.');
    }
    if (refusal.status === 401) {
      reply.header('www-authenticate', `Bearer realm="${options.realm}", error="invalid_token"`);
    }
    return reply
      .code(refusal.status)
      .header('cache-control', 'no-store')
      .send({ error: refusal.code, error_description: refusal.message });
  });

  scope.addHook('onRequest', async function checkBearer(request) {
    const match = /^Bearer +(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    if (match?.[1] === undefined || !timingSafeEqual(digest(match[1]), expected)) {
      throw new BearerRefusal(401, 'invalid_token', `A valid ${options.credential} is required.`);
    }
  });
}
