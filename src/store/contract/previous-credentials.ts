/**
 * A client's credentials replaced with an overlap (docs/decisions.md "Rotation with overlap"):
 * the previous secret or public key, accepted until its overlap ends, then kept a while so a
 * request still signed with it is told why it fails.
 */
import type { PreviousCredential, PreviousCredentialUse } from '../records.ts';

export interface PreviousCredentialStore {
  /**
   * Keeps `previous`, replacing the one of the same kind the client had (a second rotation
   * ends the first overlap at once).
   * Called by: provider/clients/rotation.ts (before the client's new credential is stored).
   */
  keep(previous: PreviousCredential): Promise<void>;
  /**
   * The client's previous credentials, of both kinds, opened.
   * Called by: the verification step signature (§3.4), only once the current credential failed;
   * provider/clients/rotation.ts (the portal, the CLI, the admin API).
   */
  find(clientKey: string): Promise<PreviousCredential[]>;
  /**
   * Marks the overlaps that ended at or before `now` as ended and returns them, each once
   * across every instance (the end is audited by the one that marked it).
   * Called by: provider/clients/rotation.ts endOverlaps (upkeep).
   */
  endOverlaps(now: number): Promise<PreviousCredential[]>;
  /**
   * Forgets the previous credentials whose overlap ended at or before `before`; how many.
   * Called by: provider/clients/rotation.ts endOverlaps (upkeep).
   */
  forget(before: number): Promise<number>;
  /**
   * Records when each previous credential was last accepted (a later time only).
   * Called by: upkeep (batches of verify/previous-credential.ts's uses).
   */
  touch(uses: readonly PreviousCredentialUse[]): Promise<void>;
  /**
   * Ends the client's overlaps now: the previous credentials are refused from the next request.
   * How many were live. Called by: provider/clients/rotation.ts endOverlapNow.
   */
  endNow(clientKey: string, now: number): Promise<number>;
}
