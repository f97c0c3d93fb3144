/** The login challenges part of the store contract: sign-ins handed to an identity provider or a login app. */
import type { LoginChallenge, NewLoginChallenge } from '../records.ts';

export interface LoginChallengeStore {
  /** Called by: provider/accounts/logins.ts begin. */
  create(challenge: NewLoginChallenge): Promise<void>;
  /** Called by: provider/accounts/logins.ts, to say why a challenge was refused. */
  find(id: string): Promise<LoginChallenge | undefined>;
  /** Called by: provider/accounts/logins.ts complete (an accepted challenge, by its login verifier). */
  findByVerifier(verifier: string): Promise<LoginChallenge | undefined>;
  /**
   * pending and unexpired at `now` → accepted with the outcome, atomically; else undefined.
   * Called by: provider/accounts/logins.ts accept (login app).
   */
  accept(
    id: string,
    outcome: { readonly verifier: string; readonly subject: string; readonly name: string },
    now: number,
  ): Promise<LoginChallenge | undefined>;
  /**
   * pending and unexpired → rejected, atomically; returns it, else undefined.
   * Called by: provider/accounts/logins.ts reject (login app).
   */
  reject(id: string, now: number): Promise<LoginChallenge | undefined>;
  /**
   * The browser came back: `pending` (looked up by id) or `accepted` (by verifier), of this
   * browser, unexpired → used, atomically. Returns it, else undefined (nothing changes).
   * Called by: provider/accounts/logins.ts complete and resume (the browser comes back).
   */
  consume(
    from:
      | { readonly state: 'pending'; readonly id: string }
      | {
          readonly state: 'accepted';
          readonly verifier: string;
        },
    browser: string,
    now: number,
  ): Promise<LoginChallenge | undefined>;
  /**
   * Deletes every challenge that expired before `now`; returns how many.
   * Called by: provider maintain (periodic upkeep).
   */
  purgeExpired(now: number): Promise<number>;
}
