/** Owners' remembered consents (docs/identity.md "Remembered consent"). */
import type { RememberedConsent } from '../records.ts';

export interface ConsentStore {
  /**
   * Records or replaces the owner's consent to the client.
   * Called by: provider/flow/standing-consent.ts (an owner allowed a 'same-scope' client).
   */
  remember(consent: RememberedConsent): Promise<void>;
  /** Called by: provider/flow/standing-consent.ts (before the consent page). */
  find(ownerId: string, clientKey: string): Promise<RememberedConsent | undefined>;
  /** The owner's remembered consents. Called by: provider (Connected apps). */
  list(ownerId: string): Promise<RememberedConsent[]>;
  /** True when there was one. Called by: provider (Connected apps' "Stop"). */
  forget(ownerId: string, clientKey: string): Promise<boolean>;
}
