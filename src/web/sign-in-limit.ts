/**
 * The per-address sign-in cap on every sign-in surface (docs/security.md): a password post, a
 * login challenge started, a return from the identity provider or the login app. The pages'
 * @fastify/rate-limit decides and answers (429 with Retry-After, shown as the error page),
 * counting in the provider's sign-in counters instead of its own memory, so that every
 * instance on a store with Redis shares one count per address. All surfaces share that one
 * budget: the key is the address, whatever the route.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyRateLimitStore } from '@fastify/rate-limit';
import type { SignInThrottle } from '../provider/index.ts';

/** Counts a sign-in step of this request's address; throws the 429 once over the cap. */
export type SignInStep = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/**
 * @fastify/rate-limit's store over the provider's per-address counter, given when the pages
 * register the library (its store is the plugin's, one for every route and limiter).
 */
export function signInCounters(throttle: SignInThrottle) {
  return class SignInCounters implements FastifyRateLimitStore {
    incr(
      address: string,
      callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
    ): void {
      throttle.countAddress(address).then(
        (counted) => callback(null, { current: counted.count, ttl: counted.ttlMs }),
        (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
      );
    }

    child(): FastifyRateLimitStore {
      return this;
    }
  };
}

/** The step check, for a route's `onRequest` or to call where a step begins. */
export function signInStep(fastify: FastifyInstance, throttle: SignInThrottle): SignInStep {
  const check = fastify.rateLimit({
    // The provider owns the cap and the window; the library compares and answers.
    max: throttle.perAddress,
    timeWindow: throttle.windowMs,
  });
  return async (request, reply) => {
    await check.call(fastify, request, reply);
  };
}
