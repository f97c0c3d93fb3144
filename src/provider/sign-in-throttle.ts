/**
 * Password sign-in throttling. Every attempt for an account counts and a success clears the
 * count, so N wrong passwords in a row pause the account for the window. Counted whether or
 * not the account exists, so the answer reveals nothing. The counters live in the store
 * (Redis with a shared store), so every instance sees the same counts.
 */
import { createHash } from 'node:crypto';
import type { Store } from '../store/types.ts';
import type { SignInLimits } from './policy.ts';

function accountKey(username: string): string {
  // Case folded so that "Alice" and "alice" share one budget; hashed to bound the key size.
  const digest = createHash('sha256').update(username.trim().toLowerCase()).digest('base64url');
  return `signin:account:${digest}`;
}

export function createSignInThrottle(store: Store, now: () => number, limits: SignInLimits) {
  const windowMs = limits.windowSeconds * 1000;
  return {
    /** Counts one attempt; false when the account is paused and the password must not be tried. */
    async allow(username: string): Promise<boolean> {
      const hits = await store.attempts.hit(accountKey(username), now(), windowMs);
      return hits <= limits.perAccount;
    },
    /** A successful sign-in clears the count. */
    async clear(username: string): Promise<void> {
      await store.attempts.reset(accountKey(username));
    },
  };
}

export type SignInThrottle = ReturnType<typeof createSignInThrottle>;
