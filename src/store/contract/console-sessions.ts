/** The operator console's sign-ins (docs/admin.md "Console"), shared by every instance. */

/** A console session: the SHA-256 of the browser's value, and the admin token it stands for. */
export interface ConsoleSessionRecord {
  readonly id: string;
  /** The admin token's public id (`lka_<id>_…`); the token itself is never stored. */
  readonly tokenId: string;
  readonly expiresAt: number;
}

export interface ConsoleSessionStore {
  /** Called by: provider/admin/console-sessions.ts start (sign-in). */
  create(session: ConsoleSessionRecord): Promise<void>;
  /**
   * The session if it exists and has not expired at `now`.
   * Called by: provider/admin/console-sessions.ts resume (every console request).
   */
  find(id: string, now: number): Promise<ConsoleSessionRecord | undefined>;
  /** Called by: provider/admin/console-sessions.ts end (sign-out); false when there was none. */
  remove(id: string): Promise<boolean>;
  /** Called by: provider maintain (periodic upkeep). */
  purgeExpired(now: number): Promise<number>;
}
