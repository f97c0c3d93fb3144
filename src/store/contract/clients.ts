/** The clients part of the store contract (RFC 5849 §1.1 client credentials). */
import type { Client, ClientChanges, NewClient } from '../records.ts';

export interface ClientStore {
  /**
   * Throws StoreConflictError when the key exists.
   * Called by: provider/clients/clients.ts register (CLI, developer portal).
   */
  create(client: NewClient): Promise<Client>;
  /** Called by: the verification step load-credentials (§3.4), authorization describe (§2.2), clients, tokens, connections, import. */
  find(key: string): Promise<Client | undefined>;
  /** Called by: provider/clients/clients.ts list (CLI, developer portal). */
  list(filter?: { readonly developerId?: string }): Promise<Client[]>;
  /**
   * Returns the updated client, or undefined when there is none.
   * Called by: provider/clients/clients.ts update, setDisabled, rotateSecret.
   */
  update(key: string, changes: ClientChanges): Promise<Client | undefined>;
  /**
   * Removes the client and every credential issued to it.
   * Called by: provider/clients/clients.ts remove.
   */
  remove(key: string): Promise<boolean>;
}
