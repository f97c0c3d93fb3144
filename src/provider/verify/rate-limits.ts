/**
 * Per-client rate limits on protected-resource requests (docs/security.md#rate-limits):
 * requests a verified client makes, and verifications that fail for a client key from one
 * address. Counted in the store's rate counters (Redis when configured, so every instance
 * shares the count; memory on the embedded store), in fixed one-minute windows; a client's
 * own limits override the policy's defaults, which a normal client never meets.
 *
 * Requests are reported to the shared count in small batches far from a limit and one by
 * one near it, so the common request does no I/O for its count (the hot path).
 *
 * Failures are counted per (client key, address), never per key alone: a key is no secret,
 * and anyone could otherwise lock a client out by failing in its name. A key no client has
 * is counted per address alone, under the policy's limit: made-up keys would otherwise each
 * start a counter of their own (in memory or in Redis) and none would ever meet its limit.
 * Once a source is over its limit, this instance refuses it before any verification work
 * (for a made-up key, before any counting) until the window ends.
 *
 * What this instance knows of a client's window is also its standing (RateLimitStanding): the
 * limit, an estimate of what is left and the seconds to the window's end, sent as the
 * RateLimit-Limit, -Remaining and -Reset fields (IETF draft "RateLimit header fields for
 * HTTP", the three-field form) on verified answers and with the 429, read from memory: no
 * store round trip. With several instances the remaining count is an estimate: the shared
 * count at this instance's last report, less what it counted since (docs/security.md#rate-limits).
 */
import { OAuthError } from '../../protocol/index.ts';
import type { Client, RateCounterStore } from '../../store/types.ts';
import type { Policy } from '../policy.ts';

const WINDOW_MS = 60_000;
/** Sources this instance remembers as over their failure limit, at most. */
const MAX_BLOCKED = 10_000;
/** Request windows this instance keeps (one per verified client), at most. */
const MAX_WINDOWS = 100_000;
/** Most requests counted locally before they are sent to the shared count. */
const MAX_BATCH = 64;

/** What this instance knows of a client's request window. */
interface RequestWindow {
  /** The shared count at the last report (every instance's requests). */
  shared: number;
  /** Requests counted here and not yet reported. */
  pending: number;
  /** When the window ends (0 until the first report says). */
  endsAt: number;
  /** The client's request limit when last counted. */
  limit: number;
}

/** A client's standing in its current window, as the RateLimit-* fields tell it. */
export interface RateLimitStanding {
  /** Requests (or failures) allowed per window. */
  readonly limit: number;
  /** An estimate of what is left in the window (0 once refused). */
  readonly remaining: number;
  /** Seconds until the window ends (at least 1). */
  readonly resetSeconds: number;
}

/** A 429 from a rate limit, with the standing its RateLimit-* fields tell. */
export class RateLimitError extends OAuthError {
  readonly standing: RateLimitStanding;

  constructor(what: string, ttlMs: number, limit: number) {
    const seconds = secondsLeft(ttlMs);
    super(
      'rate_limit_exceeded',
      `Too many ${what} for this client; try again in ${seconds} seconds.`,
      { retryAfterSeconds: seconds },
    );
    this.standing = { limit, remaining: 0, resetSeconds: seconds };
  }
}

/** Where a request comes from: the client key it names and the address it came from. */
export interface RequestSource {
  /** The client key the request names, read from the request's parameters when asked. */
  claimedKey(): string | undefined;
  readonly address: string | undefined;
}

export interface RateLimits {
  /** Before verification: 429 while this source is over its failure limit (no I/O). */
  checkBlocked(source: RequestSource): void;
  /** After a verification failed with `error`: counts it; the 429 to answer once over. */
  countFailure(
    source: RequestSource,
    error: OAuthError,
    clientOf: (key: string) => Promise<Client | undefined>,
  ): Promise<OAuthError>;
  /**
   * After a verified request: counts it for its client; 429 once over the limit. Undefined
   * when the count stays local (no I/O); else a promise to await.
   */
  countRequest(client: Client): Promise<void> | undefined;
  /**
   * After countRequest: the client's standing as this instance knows it (no I/O); undefined
   * before its first report.
   */
  standing(clientKey: string): RateLimitStanding | undefined;
}

function secondsLeft(ttlMs: number): number {
  return Math.max(1, Math.ceil(ttlMs / 1000));
}

export function createRateLimits(
  counters: RateCounterStore,
  policy: Policy,
  now: () => number,
): RateLimits {
  /** Failure keys over their limit on this instance: when their window ends, and the limit. */
  const blocked = new Map<string, { readonly until: number; readonly limit: number }>();
  /** Each verified client's request window as this instance knows it. */
  const windows = new Map<string, RequestWindow>();
  const failureKey = (clientKey: string, address: string | undefined) =>
    `f:${clientKey}:${address ?? ''}`;
  const unknownKey = (address: string | undefined) => `u:${address ?? ''}`;

  return {
    checkBlocked(source) {
      if (blocked.size === 0) return; // the common case: nothing to look up
      const key = source.claimedKey();
      if (key === undefined) return;
      const name = failureKey(key, source.address);
      const until = blocked.get(name);
      if (until === undefined) return;
      const left = until.until - now();
      if (left <= 0) blocked.delete(name);
      else throw new RateLimitError('failed requests from this address', left, until.limit);
    },

    async countFailure(source, error, clientOf) {
      // Counted: what a client did wrong (400, 401); not a scope refusal or an outage.
      if (error.status !== 400 && error.status !== 401) return error;
      const key = source.claimedKey();
      if (key === undefined) return error;
      const client = await clientOf(key);
      const limit = client?.failuresPerMinute ?? policy.failuresPerMinute;
      const name =
        client === undefined ? unknownKey(source.address) : failureKey(key, source.address);
      const until = blocked.get(name);
      if (until !== undefined && until.until > now()) {
        return new RateLimitError('failed requests from this address', until.until - now(), limit);
      }
      const { count, ttlMs } = await counters.incr(name, WINDOW_MS);
      if (count <= limit) return error;
      if (blocked.size >= MAX_BLOCKED) blocked.clear();
      blocked.set(name, { until: now() + ttlMs, limit });
      return new RateLimitError('failed requests from this address', ttlMs, limit);
    },

    countRequest(client) {
      const limit = client.requestsPerMinute ?? policy.requestsPerMinute;
      const at = now();
      let window = windows.get(client.key);
      if (window === undefined || (window.endsAt !== 0 && window.endsAt <= at)) {
        if (windows.size >= MAX_WINDOWS) windows.clear();
        window = { shared: 0, pending: 0, endsAt: 0, limit };
        windows.set(client.key, window);
      }
      window.limit = limit;
      window.pending += 1;
      if (window.endsAt > at && window.shared + window.pending > limit) {
        throw new RateLimitError('requests', window.endsAt - at, limit);
      }
      // Far from the limit, requests are reported in batches (one store call for up to 64);
      // within 100 batches of it, every request is reported, so the limit holds exactly.
      const batch = Math.min(MAX_BATCH, Math.max(1, Math.floor((limit - window.shared) / 100)));
      if (window.endsAt !== 0 && window.pending < batch) return undefined;
      const hits = window.pending;
      window.pending = 0;
      const reported = window;
      return counters.incr(`r:${client.key}`, WINDOW_MS, hits).then(({ count, ttlMs }) => {
        reported.shared = Math.max(reported.shared, count);
        reported.endsAt = now() + ttlMs;
        if (count > limit) throw new RateLimitError('requests', ttlMs, limit);
      });
    },

    standing(clientKey) {
      const window = windows.get(clientKey);
      if (window === undefined || window.endsAt === 0) return undefined;
      return {
        limit: window.limit,
        remaining: Math.max(0, window.limit - window.shared - window.pending),
        resetSeconds: secondsLeft(window.endsAt - now()),
      };
    },
  };
}
