/**
 * The one place an error becomes an HTTP answer on the OAuth routes: an OAuthError's status,
 * a form-encoded `oauth_problem` body, `WWW-Authenticate` on 401 (§3.5.1); a store outage (a
 * database away, a full disk, a secret sealed under a key not configured) is 503
 * `temporarily_unavailable` with Retry-After (fail closed); anything unexpected is a bare 500
 * with no detail.
 */
import type { FastifyBaseLogger, FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { OAuthError, problemChallenge, problemFormBody } from '../protocol/index.ts';
import { RateLimitError, SealedValueError, StoreUnavailableError } from '../provider/index.ts';
import { rateLimitHeaders } from './rate-limit-headers.ts';

const FORM = 'application/x-www-form-urlencoded';
const TEXT = 'text/plain; charset=utf-8';
/**
 * How long a client waits before retrying after a store outage (503 with Retry-After,
 * RFC 9110 §10.2.3), on every surface: the OAuth routes, the pages, the login app's admin API
 * and /readyz. Short: an outage is usually a database failing over or a connection coming back.
 */
export const STORE_OUTAGE_RETRY_AFTER_SECONDS = 5;

/** An error's answer, the same from every adapter (Fastify app, gateway, middleware). */
export interface FailureAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * What to answer for `error`: an OAuthError (or a framework 4xx mapped onto one) as a form
 * body, with `WWW-Authenticate` on 401; a store outage as 503 with Retry-After; anything
 * else as a bare 500.
 */
export function failureAnswer(error: unknown, realm: string): FailureAnswer {
  const oauthError = error instanceof Error ? toOAuthError(error) : undefined;
  if (oauthError !== undefined) {
    const headers: Record<string, string> = { 'content-type': FORM, 'cache-control': 'no-store' };
    if (oauthError.status === 401)
      headers['www-authenticate'] = problemChallenge(oauthError, realm);
    if (oauthError.retryAfterSeconds !== undefined)
      headers['retry-after'] = String(oauthError.retryAfterSeconds);
    if (oauthError instanceof RateLimitError)
      Object.assign(headers, rateLimitHeaders(oauthError.standing));
    return { status: oauthError.status, headers, body: problemFormBody(oauthError) };
  }
  if (error instanceof StoreUnavailableError) {
    const unavailable = new OAuthError(
      'temporarily_unavailable',
      'The service is temporarily unavailable; try again shortly.',
    );
    return {
      status: unavailable.status,
      headers: {
        'retry-after': String(STORE_OUTAGE_RETRY_AFTER_SECONDS),
        'content-type': FORM,
        'cache-control': 'no-store',
      },
      body: problemFormBody(unavailable),
    };
  }
  return { status: 500, headers: { 'content-type': TEXT }, body: 'Internal server error.' };
}

export function sendFailure(reply: FastifyReply, answer: FailureAnswer): FastifyReply {
  return reply.code(answer.status).headers(answer.headers).send(answer.body);
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

/**
 * A stored secret that cannot be opened (its key not configured, or the row altered) is
 * answered like an outage, but logged as an error: an operator must give the key back. Only
 * the message is logged: it names the key id, never a value.
 */
export function logSealedValue(log: FastifyBaseLogger, error: SealedValueError): void {
  log.error(
    { event: 'secrets.unreadable', err: error.message },
    'a stored secret cannot be opened',
  );
}

export function createErrorHandler(realm: string) {
  return function oauthErrorHandler(
    error: FastifyError | Error,
    request: FastifyRequest,
    reply: FastifyReply,
  ) {
    const answer = failureAnswer(error, realm);
    if (error instanceof SealedValueError) logSealedValue(request.log, error);
    else if (answer.status === 503) request.log.warn({ err: error.message }, 'store unavailable');
    else if (answer.status >= 500) request.log.error({ err: error }, 'unexpected error');
    return sendFailure(reply, answer);
  };
}
