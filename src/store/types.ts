/**
 * The store contract: what the provider asks of storage. Every adapter (sqlite, postgres,
 * redis for nonces and counters) implements these interfaces, and one contract suite
 * (test/stores/contract/) holds each of them to it. Each method names the provider step that
 * calls it; nothing above the provider calls the store. Times are milliseconds since the epoch
 * unless a name says seconds. Methods that must happen once (authorize, exchange, nonce first
 * use, revoke) are atomic in the adapter: never a read followed by a write in Node.
 *
 * One file a sub-store in contract/; this module names them all, with the records
 * (records.ts) they keep, so every importer has one path.
 */
export type * from './records.ts';
export type { AttemptStore } from './contract/attempts.ts';
export type { AuditActor, AuditEvent, AuditStore, NewAuditEvent } from './contract/audit.ts';
export type { ClientStore } from './contract/clients.ts';
export type { ConsentStore } from './contract/consents.ts';
export type { ConsoleSessionRecord, ConsoleSessionStore } from './contract/console-sessions.ts';
export type { LoginChallengeStore } from './contract/login-challenges.ts';
export type { NonceStore } from './contract/nonces.ts';
export type { OwnerStore } from './contract/owners.ts';
export type { PreviousCredentialStore } from './contract/previous-credentials.ts';
export type { RateCounterStore } from './contract/rate-counters.ts';
export type { SealedSecretStore } from './contract/sealed-secrets.ts';
export type { SessionStore } from './contract/sessions.ts';
export type { Store } from './contract/store.ts';
export type { TemporaryCredentialStore } from './contract/temporary-credentials.ts';
export type { TokenCredentialStore } from './contract/token-credentials.ts';
export type { ExistingRows, TransferStore, TransferWrites } from './contract/transfer.ts';
export { StoreConflictError, StoreUnavailableError } from './contract/errors.ts';
export type {
  ClaimedDelivery,
  DeliveryOutcome,
  DeliveryPosition,
  NewWebhook,
  Webhook,
  WebhookDelivery,
  WebhookEvent,
  WebhookChanges,
  WebhookStore,
} from './contract/webhooks.ts';
export type { AdminRole, AdminToken, AdminTokenStore } from './contract/admin-tokens.ts';
