/** The audit trail part of the store contract. */

/** Who acted: a resource owner, a client, the login app through the admin API, or the operator (CLI). */
export type AuditActor = 'owner' | 'client' | 'admin' | 'operator';

/** One security event (docs/security.md "The audit trail"). Never holds a secret. */
export interface AuditEvent {
  readonly id: number;
  readonly at: number;
  /** What happened: `owner.signed-in`, `authorization.granted`, `client.deleted`, … */
  readonly event: string;
  readonly actor: AuditActor;
  readonly ownerId: string | null;
  readonly clientKey: string | null;
  /** The address the request came from (as the trusted proxy gave it); null from the CLI. */
  readonly address: string | null;
  /** Further facts, JSON text (fields changed, counts, the reason of a refusal). */
  readonly detail: string;
}

export type NewAuditEvent = Omit<AuditEvent, 'id'>;

export interface AuditStore {
  append(event: NewAuditEvent): Promise<void>;
  /** Newest first, at most `limit`, filtered by time (`since`, inclusive), client and owner. */
  list(filter: {
    readonly since?: number | undefined;
    readonly clientKey?: string | undefined;
    readonly ownerId?: string | undefined;
    readonly limit: number;
  }): Promise<AuditEvent[]>;
  /** Deletes the events older than `before`; returns how many (retention). */
  purgeBefore(before: number): Promise<number>;
}
