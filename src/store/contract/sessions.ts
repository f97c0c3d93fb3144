/** The owners' browser sessions part of the store contract. */
import type { Session } from '../records.ts';

export interface SessionStore {
  /** Called by: provider/accounts/sessions.ts start (sign-in). */
  create(session: Session): Promise<void>;
  /**
   * Returns the session if it exists and has not expired at `now`.
   * Called by: provider/accounts/sessions.ts resume (every page request).
   */
  find(id: string, now: number): Promise<Session | undefined>;
  /** Called by: provider/accounts/sessions.ts end (sign-out). */
  remove(id: string): Promise<boolean>;
  /** Called by: provider/accounts/owners.ts setPassword. */
  removeForOwner(ownerId: string): Promise<number>;
  /** Called by: provider maintain (periodic upkeep). */
  purgeExpired(now: number): Promise<number>;
}
