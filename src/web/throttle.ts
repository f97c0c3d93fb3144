/**
 * Per-account sign-in throttling. Every attempt counts and a success clears the
 * count, so N wrong passwords in a row pause the account for the window, whoever guesses and
 * from however many addresses. Counted whether or not the account exists, so the answer
 * reveals nothing. The per-address limit is @fastify/rate-limit on the sign-in route.
 */
import { createHash } from 'node:crypto';
import type { Provider } from '../provider/index.ts';
import type { SignInLimits } from './options.ts';

function accountKey(username: string): string {
  // Case folded so that "Alice" and "alice" share one budget; hashed to bound the key size.
  const digest = createHash('sha256').update(username.trim().toLowerCase()).digest('base64url');
  return `signin:account:${digest}`;
}

export function createAccountThrottle(provider: Provider, limits: SignInLimits) {
  const windowMs = limits.windowSeconds * 1000;
  return {
    /** Counts one attempt; false when the account is paused and the password must not be tried. */
    async allow(username: string): Promise<boolean> {
      const hits = await provider.store.attempts.hit(
        accountKey(username),
        provider.now(),
        windowMs,
      );
      return hits <= limits.perAccount;
    },
    async clear(username: string): Promise<void> {
      await provider.store.attempts.reset(accountKey(username));
    },
  };
}

export type AccountThrottle = ReturnType<typeof createAccountThrottle>;
