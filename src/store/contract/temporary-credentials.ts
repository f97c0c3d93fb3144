/** The temporary credentials part of the store contract (RFC 5849 §2.1–§2.3). */
import type {
  NewTemporaryCredential,
  NewTokenCredential,
  TemporaryCredential,
} from '../records.ts';

export interface TemporaryCredentialStore {
  /** Called by: provider/flow/temporary-credentials.ts (§2.1). */
  create(credential: NewTemporaryCredential): Promise<void>;
  /** Called by: the verification step load-credentials (§2.3 request) and authorization describe (§2.2). */
  find(token: string): Promise<TemporaryCredential | undefined>;
  /**
   * issued and unexpired at `now` → authorized, atomically. Returns false otherwise
   * (already answered, consumed, expired or unknown).
   * Called by: provider/flow/authorization.ts approve (§2.2).
   */
  authorize(
    token: string,
    grant: {
      readonly ownerId: string;
      readonly verifier: string;
      readonly scope: string;
      readonly lifetime: number | null;
    },
    now: number,
  ): Promise<boolean>;
  /**
   * issued and unexpired → denied, atomically.
   * Called by: provider/flow/authorization.ts deny (§2.2).
   */
  deny(token: string, now: number): Promise<boolean>;
  /**
   * Counts one verifier try before it is compared (provider/flow/token-credentials.ts), if fewer
   * than `limit` were counted: an atomic conditional increment, so tries racing on several
   * connections or instances cannot all pass. Returns the try's number (1 to `limit`), or 0
   * when no try is left or the credential is unknown.
   * Called by: provider/flow/token-credentials.ts (§2.3), before the verifier is compared.
   */
  recordVerifierAttempt(token: string, limit: number): Promise<number>;
  /**
   * §2.3: authorized, unexpired at `now` and issued to `clientKey` → consumed, and the token
   * credential created, in one atomic step. Returns the consumed credential, or undefined
   * when any condition fails (so a second exchange of the same credential always fails).
   * Called by: provider/flow/token-credentials.ts (§2.3).
   */
  exchange(
    token: string,
    clientKey: string,
    now: number,
    issue: NewTokenCredential,
  ): Promise<TemporaryCredential | undefined>;
  /** Called by: no provider step (tests and tools). */
  remove(token: string): Promise<boolean>;
  /**
   * Deletes every credential that expired before `now`; returns how many.
   * Called by: provider maintain (periodic upkeep).
   */
  purgeExpired(now: number): Promise<number>;
}
