/**
 * The one place an error becomes an HTTP answer on the OAuth routes: an OAuthError's status,
 * a form-encoded `oauth_problem` body, `WWW-Authenticate` on 401 (§3.5.1); a store outage is
 * 503 with Retry-After (fail closed); anything unexpected is a bare 500 with no detail.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { OAuthError, problemChallenge, problemFormBody } from '../protocol/index.ts';
import { StoreUnavailableError } from '../store/types.ts';

const FORM = 'application/x-www-form-urlencoded';

export function sendOAuthError(
  reply: FastifyReply,
  error: OAuthError,
  realm: string,
): FastifyReply {
  reply.code(error.status).header('content-type', FORM).header('cache-control', 'no-store');
  if (error.status === 401) reply.header('www-authenticate', problemChallenge(error, realm));
  return reply.send(problemFormBody(error));
}

/** Maps framework and store errors onto the OAuth vocabulary, so bad input is never a 500. */
export function toOAuthError(error: FastifyError | Error): OAuthError | undefined {
  if (error instanceof OAuthError) return error;
  const status = (error as FastifyError).statusCode;
  if (status === 413) {
    return new OAuthError('parameter_rejected', 'The request body is too large.', { status: 413 });
  }
  if (status === 415) {
    return new OAuthError('parameter_rejected', 'Unsupported content type.', { status: 415 });
  }
  if (status !== undefined && status >= 400 && status < 500) {
    return new OAuthError(
      'parameter_rejected',
      `Malformed request: ${error.message.slice(0, 200)}`,
      { status },
    );
  }
  return undefined;
}

export function createErrorHandler(realm: string) {
  return function oauthErrorHandler(
    error: FastifyError | Error,
    request: FastifyRequest,
    reply: FastifyReply,
  ) {
    const oauthError = toOAuthError(error);
    if (oauthError !== undefined) return sendOAuthError(reply, oauthError, realm);
    if (error instanceof StoreUnavailableError) {
      request.log.warn({ err: error.message }, 'store unavailable');
      return reply
        .code(503)
        .header('retry-after', '5')
        .header('content-type', 'text/plain; charset=utf-8')
        .send('The service is temporarily unavailable; try again shortly.');
    }
    request.log.error({ err: error }, 'unexpected error');
    return reply
      .code(500)
      .header('content-type', 'text/plain; charset=utf-8')
      .send('Internal server error.');
  };
}
