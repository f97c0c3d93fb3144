/**
 * The one place an error becomes an answer of the admin API: `application/problem+json`
 * (RFC 9457) with `type`, `title`, `status` and `detail`. Every problem has the type
 * `about:blank`, so its title is the status's phrase (RFC 9457 §4.2.1) and the status says
 * what kind of problem it is; `detail` says what to do, and `field` names the input at fault.
 * A store outage is 503 with Retry-After; anything unexpected is a 500 that tells nothing.
 */
import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import {
  AdminRefusal,
  InputError,
  NotFoundError,
  SealedValueError,
  StoreUnavailableError,
} from '../../provider/index.ts';
import { logSealedValue, STORE_OUTAGE_RETRY_AFTER_SECONDS } from '../error-reply.ts';

export const PROBLEM = 'application/problem+json';

/** A refusal the admin routes make themselves (a precondition, an unknown route). */
export class AdminProblem extends Error {
  override readonly name = 'AdminProblem';
  readonly status: number;
  constructor(status: number, detail: string) {
    super(detail);
    this.status = status;
  }
}

interface Problem {
  readonly status: number;
  readonly detail: string;
  readonly field?: string | undefined;
  readonly headers?: Readonly<Record<string, string>>;
}

/** The problem to answer for `error`. */
export function problemOf(error: unknown): Problem {
  if (error instanceof AdminRefusal) {
    if (error.status === 401) {
      return {
        status: 401,
        detail: error.message,
        headers: { 'www-authenticate': 'Bearer realm="latchkey-admin"' },
      };
    }
    const retry = error.retryAfterSeconds;
    return {
      status: error.status,
      detail: error.message,
      ...(retry === undefined ? {} : { headers: { 'retry-after': String(retry) } }),
    };
  }
  if (error instanceof AdminProblem) return { status: error.status, detail: error.message };
  if (error instanceof InputError)
    return { status: 400, detail: error.message, field: error.field };
  if (error instanceof NotFoundError) return { status: 404, detail: error.message };
  if (error instanceof StoreUnavailableError) {
    return {
      status: 503,
      detail: 'The store is unavailable; nothing was done. Try again shortly.',
      headers: { 'retry-after': String(STORE_OUTAGE_RETRY_AFTER_SECONDS) },
    };
  }
  const fastify = error as Partial<FastifyError>;
  if (fastify.validation !== undefined) {
    return { status: 400, detail: String(fastify.message).slice(0, 200) };
  }
  const status = fastify.statusCode;
  if (status === 413) return { status, detail: 'The request body is too large.' };
  if (status === 415) return { status, detail: 'The body must be JSON (application/json).' };
  if (status !== undefined && status >= 400 && status < 500) {
    return { status, detail: 'The request could not be read.' };
  }
  return { status: 500, detail: 'The request could not be completed.' };
}

export function sendProblem(reply: FastifyReply, problem: Problem): FastifyReply {
  const body = {
    type: 'about:blank',
    title: STATUS_CODES[problem.status] ?? 'Error',
    status: problem.status,
    detail: problem.detail,
    ...(problem.field === undefined ? {} : { field: problem.field }),
  };
  return reply
    .code(problem.status)
    .headers({ ...problem.headers, 'cache-control': 'no-store' })
    .type(PROBLEM)
    .send(JSON.stringify(body));
}

export function adminErrorHandler(error: unknown, request: FastifyRequest, reply: FastifyReply) {
  const problem = problemOf(error);
  if (error instanceof SealedValueError) logSealedValue(request.log, error);
  else if (problem.status === 503) request.log.warn({ err: String(error) }, 'store unavailable');
  else if (problem.status >= 500) request.log.error({ err: error }, 'admin API failed');
  return sendProblem(reply, problem);
}

/** A problem's description in a route schema (OpenAPI). */
export function problemAnswer(description: string) {
  return {
    description,
    content: {
      [PROBLEM]: {
        schema: {
          type: 'object',
          properties: {
            type: { type: 'string' },
            title: { type: 'string' },
            status: { type: 'integer' },
            detail: { type: 'string' },
            field: { type: 'string' },
          },
          required: ['type', 'title', 'status', 'detail'],
        },
      },
    },
  };
}
