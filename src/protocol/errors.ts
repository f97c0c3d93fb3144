/**
 * The one error type of the protocol: an `oauth_problem` code, the HTTP status from the
 * catalog (RFC 5849 §3.2) and optional advice parameters (OAuth Problem Reporting).
 * Messages are for people and never contain secrets, signatures or base strings.
 */
import { problems, type OAuthProblem } from './problems.ts';

export interface OAuthErrorOptions {
  /** Overrides the catalog's status, for example 413 for an oversized body. */
  readonly status?: number;
  /** Extra response fields, such as `oauth_acceptable_timestamps` or `oauth_parameters_absent`. */
  readonly advice?: Readonly<Record<string, string>>;
  /** Seconds before trying again, sent as `Retry-After` (a rate limit). */
  readonly retryAfterSeconds?: number;
  readonly cause?: unknown;
}

export class OAuthError extends Error {
  override readonly name = 'OAuthError';
  readonly problem: OAuthProblem;
  readonly status: number;
  readonly advice: Readonly<Record<string, string>>;
  readonly retryAfterSeconds: number | undefined;

  constructor(problem: OAuthProblem, message: string, options: OAuthErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.problem = problem;
    this.status = options.status ?? problems[problem].status;
    this.advice = options.advice ?? {};
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** Narrowing guard usable across module copies. */
export function isOAuthError(value: unknown): value is OAuthError {
  return value instanceof OAuthError;
}
