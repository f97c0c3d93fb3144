/**
 * The provider: every rule of the service behind one object, framework-free. HTTP adapters,
 * the web pages and the CLI all go through it, so a rule lives in one place.
 */
import type { SealedSecretStore, Store } from '../store/types.ts';
import { createAuthorizationDesk } from './flow/authorization-desk.ts';
import type { AuthorizationDesk } from './flow/authorization-desk.ts';
import { withOwnerEvents } from './accounts/owner-events.ts';

import { createCredentialKeys } from './verify/credential-keys.ts';
import type { VerifiedResourceRequest } from './caller.ts';
import { cacheReportOf } from '../store/cached.ts';
import { createClientRegistry } from './clients/clients.ts';
import { createConnectionBook } from './flow/connections.ts';
import { createConsentBook } from './flow/standing-consent.ts';
import type { ConsentBook } from './flow/standing-consent.ts';
import { createLoginDesk } from './accounts/logins.ts';
import { createOwnerDirectory } from './accounts/owners.ts';
import { resolvePolicy } from './policy.ts';
import type { Policy, PolicyOverrides } from './policy.ts';
import { createRateLimits } from './verify/rate-limits.ts';
import { createUsageMeter } from './clients/usage.ts';
import type { UsageDay } from '../store/usage.ts';
import { purgeClock } from './purge-clock.ts';
import type { IncomingRequest } from './request.ts';
import { createSessionBook } from './accounts/sessions.ts';
import { createAuditTrail, type AuditTrail } from './audit.ts';
import { createProviderEvents, type ProviderEvents } from './events.ts';
import { createAdminDesk, type AdminDesk } from './admin/admin-desk.ts';
import { createAdminTokens } from './admin/admin-tokens.ts';
import { createConsoleSessions, type ConsoleSessions } from './admin/console-sessions.ts';
import type { SealingKeySource } from './admin/sealing-keys.ts';
import { createWebhookDesk, type WebhookDesk } from './webhooks/webhooks.ts';
import { createSignInThrottle } from './accounts/sign-in-throttle.ts';
import { invalidateToken } from './flow/invalidation.ts';
import { carriesSessionHandle, renewTokenCredentials } from './flow/session-extension.ts';
import { issueTemporaryCredentials } from './flow/temporary-credentials.ts';
import { exchangeTokenCredentials } from './flow/token-credentials.ts';
import { createTokenLedger } from './flow/tokens.ts';
import { createOwnedTokens, type OwnedTokens } from './flow/owned-tokens.ts';
import { exportRecords } from './transfer/export.ts';
import type { ExportOptions } from './transfer/export.ts';
import { createImport } from './transfer/import.ts';
import type { ImportOptions } from './transfer/import.ts';
import { verifyLtiLaunch } from './verify/verify-request.ts';
import type { VerifiedLtiLaunch } from './verify/verify-request.ts';
import { createUpkeep } from './upkeep.ts';
import { createPreviousUses } from './verify/previous-credential.ts';
import { createResourceVerifier } from './resource-verifier.ts';
import type { CacheReport } from '../store/cached.ts';
import type { ClientRegistry } from './clients/clients.ts';
import type { ConnectionBook } from './flow/connections.ts';
import type { LoginDesk } from './accounts/logins.ts';
import type { OwnerDirectory } from './accounts/owners.ts';
import type { SessionBook } from './accounts/sessions.ts';
import type { SignInThrottle } from './accounts/sign-in-throttle.ts';
import type { IssuedTemporaryCredentials } from './flow/temporary-credentials.ts';
import type { IssuedTokenCredentials } from './flow/token-credentials.ts';
import type { TokenLedger } from './flow/tokens.ts';
import type { ExportedRecord } from './transfer/export.ts';
import type { ImportSession } from './transfer/import.ts';

export interface ProviderOptions {
  readonly store: Store;
  readonly policy?: PolicyOverrides | undefined;
  /** Milliseconds since the epoch; injectable so expiry can be tested without waiting. */
  readonly now?: (() => number) | undefined;
  /**
   * Milliseconds from any origin, never stepped: purges never run ahead of the time it saw
   * pass (purge-clock.ts). Default `performance.now`, or `now` itself when `now` is injected
   * (a test clock moved forward is time passing).
   */
  readonly monotonicNow?: (() => number) | undefined;
  /** How often last-use times are written and expired rows purged (ms). */
  readonly maintenanceIntervalMs?: number | undefined;
  /** close() closes the store too (the CLI opens a store for its provider alone). */
  readonly ownsStore?: boolean | undefined;
  /** Where the store's sealing keys come from, for the admin API's key report and rotation. */
  readonly sealingKeys?: SealingKeySource | undefined;
}

export interface ResourceOptions {
  /** false accepts a request signed by the client alone (two-legged). Default true. */
  readonly tokenRequired?: boolean | undefined;
  /** Scope names the token must carry (403 permission_denied otherwise). */
  readonly scope?: string | undefined;
  /**
   * A body that is not form-encoded must carry `oauth_body_hash` (Request Body Hash
   * extension), so the signature covers it: 400 parameter_absent otherwise. Default false
   * (a body hash sent is checked either way).
   */
  readonly requireBodyHash?: boolean | undefined;
}

export type { VerifiedLtiLaunch };

/**
 * The provider: the one door to the service's rules. HTTP adapters, the pages, the middleware
 * and the CLI call these operations; none of them reaches the store.
 */
export interface Provider {
  /** The rules in force (defaults merged with the overrides given). */
  readonly policy: Policy;
  /** What happened, for metrics, logs and cache invalidation (docs/events.md). */
  readonly events: ProviderEvents;
  /** The audit trail of security events (docs/security.md "The audit trail"). */
  readonly audit: AuditTrail;
  /** Secrets at rest: rows per sealing key, and re-sealing under the current key. */
  readonly secrets: SealedSecretStore;
  /** Client registration and upkeep (§1.1). */
  readonly clients: ClientRegistry;
  /** Resource owners: local accounts and people of an identity source. */
  readonly owners: OwnerDirectory;
  /**
   * Token credentials after issue: provisioning, listing, revocation (§2.3); an owner's live
   * tokens one by one (`ofOwner`, never a secret) and revoking one of them (`revokeOwned`).
   */
  readonly tokens: TokenLedger & OwnedTokens;
  /** An owner's connected apps, and ending one (the pages' "Connected apps"). */
  readonly connections: ConnectionBook;
  /** An owner's remembered consents, and stopping one (Connected apps). */
  readonly consents: ConsentBook;
  /** Signed-in browsers of the pages. */
  readonly sessions: SessionBook;
  /**
   * The admin API: its tokens and roles, listings and bulk revocation (docs/admin.md); the
   * operator console's sign-ins, shared by every instance through the store.
   */
  readonly admin: AdminDesk & { readonly consoleSessions: ConsoleSessions };
  /** Sign-in counters per (account, address) and per address (`policy.signIn`). */
  readonly signIns: SignInThrottle;
  /** Sign-ins handed to an OpenID Connect provider or a login app (docs/identity.md). */
  readonly logins: LoginDesk;
  /** Webhooks: the hooks, their delivery log and the worker that delivers (docs/webhooks.md). */
  readonly webhooks: WebhookDesk;
  /** The provider's clock, milliseconds since the epoch. */
  readonly now: () => number;
  /** A client's use per day, for its developer (clients/usage.ts). */
  readonly usage: {
    /** The client's last `days` days (today last), each day of no use as zeros. */
    days(clientKey: string, days: number): Promise<UsageDay[]>;
  };
  /** Credentials moved in and out in bulk (`latchkey import` / `export`, docs/import.md). */
  readonly transfer: {
    /** An import of one file: check every record, then write clients, then tokens. */
    importer(options?: ImportOptions): ImportSession;
    export(options?: ExportOptions): AsyncGenerator<ExportedRecord>;
  };
  /** §2.1: temporary credentials for a signed request. */
  issueTemporaryCredentials(request: IncomingRequest): Promise<IssuedTemporaryCredentials>;
  /** §2.2: the owner's decision, for the pages and for embedders who render their own. */
  readonly authorization: AuthorizationDesk;
  /** §2.3: token credentials for a signed request; with a session handle, their renewal. */
  exchangeTokenCredentials(request: IncomingRequest): Promise<IssuedTokenCredentials>;
  /** The client ends the token it signs with (`POST /oauth/invalidate_token`). */
  invalidateToken(request: IncomingRequest): Promise<{ readonly token: string }>;
  /** §3: a protected resource request verified, the token's scope enforced, and its caller. */
  verifyResourceRequest(
    request: IncomingRequest,
    resource?: ResourceOptions,
  ): Promise<VerifiedResourceRequest>;
  /** A Basic LTI 1.1 launch verified as a request signed by the LMS alone (docs/lti.md). */
  verifyLtiLaunch(request: IncomingRequest): Promise<VerifiedLtiLaunch>;
  /** Starts periodic upkeep (last-use writes, purges of expired nonces and credentials). */
  startMaintenance(): void;
  /** One round of upkeep now. */
  maintain(): Promise<void>;
  /** Writes the batched last-use times of tokens. */
  flushLastUse(): Promise<void>;
  /** True when the store's backing services answer (for /readyz). */
  ping(): Promise<boolean>;
  /** Nonces held (for the metrics). */
  nonceCount(): Promise<number>;
  /** The per-instance cache's counters, with a shared store; undefined without one. */
  cacheReport(): CacheReport | undefined;
  /**
   * Stops upkeep and the webhook workers, waits for pending webhook events to be queued and
   * writes pending last-use times; closes the store when it owns it.
   */
  close(): Promise<void>;
}

export function createProvider(options: ProviderOptions): Provider {
  const store = options.store;
  const policy = resolvePolicy(options.policy);
  const now = options.now ?? Date.now;
  const purgeNow = purgeClock(
    now,
    options.monotonicNow ?? (options.now === undefined ? () => performance.now() : now),
  );
  const events = createProviderEvents();
  const webhooks = createWebhookDesk(store.webhooks, now, events);
  const previousUses = createPreviousUses();
  const deps = { store, policy, now, keys: createCredentialKeys(), previousUses };
  const resourceDeps = { ...deps, rateLimits: createRateLimits(store.rateCounters, policy, now) };
  const usage = createUsageMeter(store.usage);
  const clients = createClientRegistry(store, policy, events, now);
  const adminTokens = createAdminTokens(store, now, events);
  const upkeep = createUpkeep({
    store,
    policy,
    events,
    webhooks,
    usage,
    endOverlaps: clients.recordEndedOverlaps,
    previousUses,
    purgeNow,
    intervalMs: options.maintenanceIntervalMs ?? 5000,
    ownsStore: options.ownsStore === true,
  });
  const audit = createAuditTrail(store, events, now);
  const owners = withOwnerEvents(createOwnerDirectory(store), events);
  const authorization = createAuthorizationDesk(deps, events, owners);
  const tokens = createTokenLedger(store, policy, now, events);

  return {
    policy,
    events,
    audit,
    secrets: store.secrets,
    clients,
    owners,
    tokens: {
      ...tokens,
      ...createOwnedTokens(store, now, upkeep.flushLastUse, tokens.revoke),
    },
    connections: createConnectionBook(store, now, upkeep.flushLastUse, tokens.revokeGrant),
    consents: createConsentBook(deps, (ownerId, clientKey) =>
      events.emit('consent.forgotten', { ownerId, clientKey }),
    ),
    sessions: createSessionBook(store, now, events),
    admin: {
      ...createAdminDesk({
        store,
        now,
        events,
        tokens,
        adminTokens,
        sealingKeys: options.sealingKeys,
      }),
      consoleSessions: createConsoleSessions(adminTokens, store.consoleSessions, events, now),
    },
    signIns: createSignInThrottle(store, now, policy.signIn, events),
    logins: createLoginDesk({ store, now, owners, events, deny: authorization.deny }),
    webhooks,
    now,
    transfer: {
      importer: (options?: ImportOptions) =>
        createImport({ store, policy, now, events, owners }, options),
      export: (options?: ExportOptions) => exportRecords(store, options),
    },
    issueTemporaryCredentials: (request: IncomingRequest) =>
      issueTemporaryCredentials(deps, request),
    authorization,
    // With `oauth_session_handle`, the session extension's renewal of the token credential
    // the request is signed with.
    exchangeTokenCredentials: (request: IncomingRequest) =>
      carriesSessionHandle(request)
        ? renewTokenCredentials({ ...deps, events }, request)
        : exchangeTokenCredentials(deps, request),
    invalidateToken: (request: IncomingRequest) => invalidateToken({ ...deps, events }, request),

    verifyResourceRequest: createResourceVerifier({ resourceDeps, usage, upkeep }),
    verifyLtiLaunch: (request: IncomingRequest) => verifyLtiLaunch(resourceDeps, request),
    usage: {
      days: (clientKey: string, days: number) => usage.days(clientKey, days, now()),
    },

    startMaintenance: upkeep.startMaintenance,
    maintain: upkeep.maintain,
    flushLastUse: upkeep.flushLastUse,
    ping: (): Promise<boolean> => store.ping(),
    nonceCount: (): Promise<number> => store.nonces.size(),
    cacheReport: () => cacheReportOf(store),
    close: upkeep.close,
  };
}
