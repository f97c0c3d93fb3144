/**
 * What a connection sends next and how it judges the answer. The generator is generic;
 * a workload knows the requests (fixed, signed live, pre-signed pool, or a multi-step flow).
 */
import type { ParsedResponse } from './response-parser.ts';

export interface Verdict {
  /** The response is what the workload expected (2xx for plain requests). */
  readonly ok: boolean;
  /** A unit of work finished (one request, or one complete flow). */
  readonly unitDone: boolean;
}

export interface Workload {
  /** Wire bytes or text of the next request for a connection, or undefined when exhausted. */
  next(connection: number): Buffer | string | undefined;
  /** Judges a response; called once per request, in order, per connection. */
  onResponse(connection: number, response: ParsedResponse): Verdict;
  /** A connection dropped mid-request: forget its in-flight state. */
  reset?(connection: number): void;
}

const OK: Verdict = { ok: true, unitDone: true };
const FAILED: Verdict = { ok: false, unitDone: false };

/** Judges by status alone: 2xx is success and one unit. */
export function judgeStatus(response: ParsedResponse): Verdict {
  return response.status >= 200 && response.status < 300 ? OK : FAILED;
}

/** The same request for ever: for unauthenticated servers (the limit, bare Fastify). */
export function fixedWorkload(request: string): Workload {
  const bytes = Buffer.from(request, 'latin1');
  return { next: () => bytes, onResponse: (_c, r) => judgeStatus(r) };
}

/** Fresh requests from a factory (signed live, fresh nonce and current timestamp). */
export function liveWorkload(build: () => string): Workload {
  return { next: () => build(), onResponse: (_c, r) => judgeStatus(r) };
}

/** Requests signed ahead of time, each sent once; exhausted when the pool is empty. */
export function poolWorkload(pool: readonly string[]): Workload {
  let index = 0;
  return {
    next: () => (index < pool.length ? pool[index++] : undefined),
    onResponse: (_c, r) => judgeStatus(r),
  };
}
