/** The resource owners part of the store contract. */
import type { NewOwner, Owner, OwnerIdentity } from '../records.ts';

export interface OwnerStore {
  /**
   * Throws StoreConflictError when the id, the username or the identity exists.
   * Called by: provider/accounts/owners.ts create (local) and signInExternal (first sign-in).
   */
  create(owner: NewOwner): Promise<Owner>;
  /** Called by: verifyResourceRequest (the caller's owner), sessions resume, owners. */
  findById(id: string): Promise<Owner | undefined>;
  /** Called by: provider/accounts/owners.ts authenticate and get; import. */
  findByUsername(username: string): Promise<Owner | undefined>;
  /**
   * The owner with this (source, issuer, subject); a missing issuer matches null.
   * Called by: provider/accounts/owners.ts signInExternal; import.
   */
  findByIdentity(identity: OwnerIdentity): Promise<Owner | undefined>;
  /** Called by: provider/accounts/owners.ts list; export. */
  list(): Promise<Owner[]>;
  /** Called by: provider/accounts/owners.ts setPassword. */
  setPasswordHash(id: string, passwordHash: string): Promise<boolean>;
  /**
   * Sets the display name (an external owner's name follows its source); false when unknown.
   * Called by: provider/accounts/owners.ts signInExternal (the name follows its source).
   */
  rename(id: string, name: string): Promise<boolean>;
  /**
   * Removes the owner and every credential issued for it.
   * Called by: provider/accounts/owners.ts remove.
   */
  remove(id: string): Promise<boolean>;
}
