/**
 * The RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset fields (IETF draft "RateLimit
 * header fields for HTTP", the three-field form): a client's standing in its window, on a
 * verified answer and with the 429, so a client can pace itself (docs/security.md#rate-limits).
 */
import type { RateLimitStanding } from '../provider/index.ts';

export function rateLimitHeaders(standing: RateLimitStanding): Record<string, string> {
  return {
    'ratelimit-limit': String(standing.limit),
    'ratelimit-remaining': String(standing.remaining),
    'ratelimit-reset': String(standing.resetSeconds),
  };
}

/** Sets the fields through `set` (a reply's or response's own setter); none without a standing. */
export function setRateLimitHeaders(
  standing: RateLimitStanding | undefined,
  set: (name: string, value: string) => unknown,
): void {
  if (standing === undefined) return;
  set('ratelimit-limit', String(standing.limit));
  set('ratelimit-remaining', String(standing.remaining));
  set('ratelimit-reset', String(standing.resetSeconds));
}
