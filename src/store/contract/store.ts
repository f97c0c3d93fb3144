/** The whole store: one sub-store per part of the contract, with its upkeep. */
import type { AttemptStore } from './attempts.ts';
import type { AuditStore } from './audit.ts';
import type { ClientStore } from './clients.ts';
import type { LoginChallengeStore } from './login-challenges.ts';
import type { NonceStore } from './nonces.ts';
import type { OwnerStore } from './owners.ts';
import type { PreviousCredentialStore } from './previous-credentials.ts';
import type { RateCounterStore } from './rate-counters.ts';
import type { SealedSecretStore } from './sealed-secrets.ts';
import type { SessionStore } from './sessions.ts';
import type { ConsentStore } from './consents.ts';
import type { ConsoleSessionStore } from './console-sessions.ts';
import type { UsageStore } from '../usage.ts';
import type { TemporaryCredentialStore } from './temporary-credentials.ts';
import type { TokenCredentialStore } from './token-credentials.ts';
import type { TransferStore } from './transfer.ts';
import type { WebhookStore } from './webhooks.ts';
import type { AdminTokenStore } from './admin-tokens.ts';

export interface Store {
  readonly clients: ClientStore;
  /** Credentials replaced with an overlap (previous-credentials.ts). */
  readonly previousCredentials: PreviousCredentialStore;
  readonly owners: OwnerStore;
  readonly temporaryCredentials: TemporaryCredentialStore;
  readonly tokenCredentials: TokenCredentialStore;
  readonly nonces: NonceStore;
  readonly sessions: SessionStore;
  readonly consents: ConsentStore;
  readonly attempts: AttemptStore;
  readonly rateCounters: RateCounterStore;
  readonly transfer: TransferStore;
  readonly loginChallenges: LoginChallengeStore;
  readonly secrets: SealedSecretStore;
  readonly audit: AuditStore;
  readonly webhooks: WebhookStore;
  readonly adminTokens: AdminTokenStore;
  /** The operator console's sign-ins (console-sessions.ts). */
  readonly consoleSessions: ConsoleSessionStore;
  /** A client's use per day (usage.ts). */
  readonly usage: UsageStore;
  /**
   * True when the backing services answer (for /readyz).
   * Called by: provider ping (/readyz).
   */
  ping(): Promise<boolean>;
  /** Called by: the owner of the store (the CLI through provider close, embedders). */
  close(): Promise<void>;
}
