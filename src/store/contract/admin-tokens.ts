/** The admin API's bearer tokens (docs/admin.md). */
/** What an admin token may do (src/provider/admin/roles.ts maps each to its actions). */
export type AdminRole = 'operator' | 'auditor' | 'support';

/**
 * A named bearer credential of the admin API (docs/admin.md). Only the SHA-256 digest of its
 * secret part is kept; the token is shown once, when it is made.
 */
export interface AdminToken {
  /** The public part of the token, which finds its row (`lka_<id>_<secret>`). */
  readonly id: string;
  /** Unique; what the audit trail names the admin by. */
  readonly name: string;
  readonly role: AdminRole;
  /** SHA-256 of the secret part, base64url. */
  readonly digest: string;
  readonly createdAt: number;
  /** Null: until revoked. */
  readonly expiresAt: number | null;
}

export interface AdminTokenStore {
  /**
   * Throws StoreConflictError when the name (or id) exists.
   * Called by: provider/admin/admin-tokens.ts add (`latchkey admin-tokens add`).
   */
  create(token: AdminToken): Promise<AdminToken>;
  /** Called by: provider/admin/admin-tokens.ts authenticate (every admin API request). */
  find(id: string): Promise<AdminToken | undefined>;
  /** By name. Called by: provider/admin/admin-tokens.ts list (`latchkey admin-tokens list`). */
  list(): Promise<AdminToken[]>;
  /**
   * Deletes the token named `name`; false when there is none.
   * Called by: provider/admin/admin-tokens.ts revoke (`latchkey admin-tokens revoke`).
   */
  remove(name: string): Promise<boolean>;
}
