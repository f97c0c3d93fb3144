/**
 * Password sign-in throttling, per (account, address). Every attempt for an account from one
 * address counts and a success there clears the count, so wrong passwords pause that account
 * from that address only: a guesser elsewhere cannot lock the owner out of their own
 * address. The pause backs off in steps: `perAccountAddress` attempts per window, twice that
 * per four windows, four times that per sixteen windows (5 per 15 minutes, 10 per hour, 20
 * per 4 hours by default), so a patient guesser gets ever fewer tries. Counted whether or not
 * the account exists, so the answer reveals nothing. The counters live in the store (Redis
 * with a shared store), so every instance sees the same counts.
 *
 * The per-address cap (`perAddress`, set for an office behind one NAT) counts every step of a
 * sign-in from an address, all accounts and all sign-in surfaces together: a password post, a
 * login challenge started (each one is stored), a return from the identity provider or the
 * login app (each one is looked up and audited when refused). It is counted in the store's
 * rate counters, in Redis when the store has it, so instances share it as they share the
 * client rate limits; the pages apply it with @fastify/rate-limit. The first refusal of a
 * window is announced (`owner.sign-in-throttled`, audited); the rest are not, so a flood
 * writes one audit row per window, not one per request.
 */
import { createHash } from 'node:crypto';
import type { Store } from '../../store/types.ts';
import type { SignInLimits } from '../policy.ts';
import type { ProviderEvents } from '../events.ts';

/** The answer to one attempt: try the password, or wait this many seconds. */
export type SignInVerdict =
  { readonly allowed: true } | { readonly allowed: false; readonly retryAfterSeconds: number };

/** The backoff steps: each allows `factor` times the attempts over `span` times the window. */
const STEPS = [
  { factor: 1, span: 1 },
  { factor: 2, span: 4 },
  { factor: 4, span: 16 },
] as const;

function pairKey(username: string, address: string): string {
  // Case folded so that "Alice" and "alice" share one budget; hashed to bound the key size
  // (and so no username or address is stored in clear).
  const digest = createHash('sha256')
    .update(`${username.trim().toLowerCase()}\n${address}`)
    .digest('base64url');
  return `signin:pair:${digest}`;
}

/** One sign-in step counted for an address: the steps in its window, and the time left. */
export interface AddressCount {
  readonly count: number;
  readonly ttlMs: number;
}

export function createSignInThrottle(
  store: Store,
  now: () => number,
  limits: SignInLimits,
  events: ProviderEvents,
) {
  const windowMs = limits.windowSeconds * 1000;
  return {
    /** The cap on sign-in steps per address per window (`signIn.perAddress`). */
    perAddress: limits.perAddress,
    windowMs,
    /**
     * Counts one sign-in step from `address`; the caller refuses it when `count` is over
     * `perAddress`. The first step over the cap in a window is announced.
     */
    async countAddress(address: string): Promise<AddressCount> {
      const counted = await store.rateCounters.incr(`signin:address:${address}`, windowMs);
      if (counted.count === limits.perAddress + 1) {
        events.emit('owner.sign-in-throttled', {
          limit: limits.perAddress,
          retryAfterSeconds: Math.ceil(counted.ttlMs / 1000),
        });
      }
      return counted;
    },
    /** Counts one attempt of `username` from `address`; refused while that pair is paused. */
    async allow(username: string, address: string): Promise<SignInVerdict> {
      const key = pairKey(username, address);
      const at = now();
      let refusedFor = 0;
      for (const step of STEPS) {
        const hits = await store.attempts.hit(`${key}:${step.span}`, at, windowMs * step.span);
        if (hits > limits.perAccountAddress * step.factor) {
          refusedFor = Math.max(refusedFor, limits.windowSeconds * step.span);
        }
      }
      return refusedFor === 0
        ? { allowed: true }
        : { allowed: false, retryAfterSeconds: refusedFor };
    },
    /** A successful sign-in from `address` clears that pair's counts. */
    async clear(username: string, address: string): Promise<void> {
      const key = pairKey(username, address);
      for (const step of STEPS) await store.attempts.reset(`${key}:${step.span}`);
    },
  };
}

export type SignInThrottle = ReturnType<typeof createSignInThrottle>;
