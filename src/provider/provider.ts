/**
 * The provider: every rule of the service behind one object, framework-free. HTTP adapters,
 * the web pages and the CLI all go through it, so a rule lives in one place.
 */
import type { SealedSecretStore, Store } from '../store/types.ts';
import {
  approveAuthorization,
  describeAuthorization,
  denyAuthorization,
} from './flow/authorization.ts';
import type { ApproveOptions, AuthorizationDependencies } from './flow/authorization.ts';
import { createCredentialKeys } from './verify/credential-keys.ts';
import type { VerifiedResourceRequest } from './caller.ts';
import { cacheReportOf } from '../store/cached.ts';
import { createClientRegistry } from './clients/clients.ts';
import { createConnectionBook } from './flow/connections.ts';
import { createConsentBook, rememberConsent, standingConsent } from './flow/standing-consent.ts';
import type { ConsentBook } from './flow/standing-consent.ts';
import { createLoginDesk } from './accounts/logins.ts';
import { createOwnerDirectory } from './accounts/owners.ts';
import type { ExternalIdentity } from './accounts/owners.ts';
import { resolvePolicy } from './policy.ts';
import type { Policy, PolicyOverrides } from './policy.ts';
import { createRateLimits } from './verify/rate-limits.ts';
import { createUsageMeter } from './clients/usage.ts';
import type { UsageDay } from '../store/usage.ts';
import { OAuthError } from '../protocol/index.ts';
import { purgeClock } from './purge-clock.ts';
import type { IncomingRequest } from './request.ts';
import { createSessionBook } from './accounts/sessions.ts';
import { createAuditTrail, type AuditTrail } from './audit.ts';
import { createProviderEvents, type ProviderEvents } from './events.ts';
import { createAdminDesk, type AdminDesk } from './admin/admin-desk.ts';
import { createAdminTokens } from './admin/admin-tokens.ts';
import { createWebhookDesk, type WebhookDesk } from './webhooks/webhooks.ts';
import { createSignInThrottle } from './accounts/sign-in-throttle.ts';
import { invalidateToken } from './flow/invalidation.ts';
import { carriesSessionHandle, renewTokenCredentials } from './flow/session-extension.ts';
import { issueTemporaryCredentials } from './flow/temporary-credentials.ts';
import { exchangeTokenCredentials } from './flow/token-credentials.ts';
import { createTokenLedger } from './flow/tokens.ts';
import { exportRecords } from './transfer/export.ts';
import type { ExportOptions } from './transfer/export.ts';
import { createImport } from './transfer/import.ts';
import type { ImportOptions } from './transfer/import.ts';
import { verifyLtiLaunch, verifyResourceRequest } from './verify/verify-request.ts';
import type { VerifiedLtiLaunch } from './verify/verify-request.ts';
import { createUpkeep } from './upkeep.ts';
import type { CacheReport } from '../store/cached.ts';
import type { Client } from '../store/types.ts';
import type { AuthorizationRequest, Approval } from './flow/authorization.ts';
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
  /** Token credentials after issue: provisioning, listing, revocation (§2.3). */
  readonly tokens: TokenLedger;
  /** An owner's connected apps, and ending one (the pages' "Connected apps"). */
  readonly connections: ConnectionBook;
  /** An owner's remembered consents, and stopping one (Connected apps). */
  readonly consents: ConsentBook;
  /** Signed-in browsers of the pages. */
  readonly sessions: SessionBook;
  /** The admin API: its tokens and roles, listings and bulk revocation (docs/admin.md). */
  readonly admin: AdminDesk;
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
  readonly authorization: {
    describe(token: string): Promise<AuthorizationRequest>;
    /**
     * `request`: the token, or what `describe` returned for it in the same request (not read
     * again; the store still refuses a request answered or expired since, atomically).
     */
    approve(
      request: string | AuthorizationRequest,
      ownerId: string,
      approve?: ApproveOptions,
    ): Promise<Approval>;
    /** Approves for a person of the embedder's own user base, named by subject. */
    approveFor(
      token: string,
      person: Omit<ExternalIdentity, 'source'> & { readonly source?: ExternalIdentity['source'] },
      approve?: ApproveOptions,
    ): Promise<Approval>;
    /**
     * Approves without asking when consent stands (docs/identity.md "Sign in with"): a
     * remembered consent, or with `liveGrant` a live grant covering the request; undefined
     * when the owner must be asked.
     */
    approveStanding(
      request: AuthorizationRequest,
      ownerId: string,
      options: { readonly liveGrant: boolean },
    ): Promise<Approval | undefined>;
    /** `ownerId`: the signed-in owner who denied, for the audit trail. */
    deny(
      token: string,
      ownerId?: string,
    ): Promise<{ readonly redirect: string | undefined; readonly client: Client }>;
  };
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
  const deps = { store, policy, now, keys: createCredentialKeys() };
  const resourceDeps = { ...deps, rateLimits: createRateLimits(store.rateCounters, policy, now) };
  const usage = createUsageMeter(store.usage);
  /**
   * A refusal in the client's usage (clients/usage.ts), off the verified path. A store that
   * cannot say whose key it is loses the count, never the answer.
   */
  async function countRefusal(request: IncomingRequest, refusal: OAuthError): Promise<void> {
    try {
      await usage.countFailure(request, refusal.problem, now(), (key) => store.clients.find(key));
    } catch {
      // The store is away: its outage is reported by the next call that needs it.
    }
  }
  const upkeep = createUpkeep({
    store,
    policy,
    events,
    webhooks,
    usage,
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
    clients: createClientRegistry(store, policy.signatureMethods, events),
    owners,
    tokens,
    connections: createConnectionBook(store, now, upkeep.flushLastUse, tokens.revokeGrant),
    consents: createConsentBook(deps, (ownerId, clientKey) =>
      events.emit('consent.forgotten', { ownerId, clientKey }),
    ),
    sessions: createSessionBook(store, now, events),
    admin: createAdminDesk({
      store,
      now,
      events,
      tokens,
      adminTokens: createAdminTokens(store, now, events),
    }),
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

    // The pipeline (verify/pipeline.ts) runs the rate limits with the verification; a used
    // token's last-use time is written with the next batch.
    async verifyResourceRequest(request: IncomingRequest, resource: ResourceOptions = {}) {
      let verified: VerifiedResourceRequest;
      try {
        verified = await verifyResourceRequest(resourceDeps, request, {
          tokenRequired: resource.tokenRequired ?? true,
          requireBodyHash: resource.requireBodyHash ?? false,
          scope: resource.scope,
        });
      } catch (error) {
        if (error instanceof OAuthError) await countRefusal(request, error);
        throw error;
      }
      const at = now();
      if (verified.caller.token !== null) upkeep.recordUse(verified.caller.token, at);
      usage.countRequest(verified.caller.client.key, verified.caller.owner?.id, at);
      const rateLimit = resourceDeps.rateLimits.standing(verified.caller.client.key);
      return rateLimit === undefined ? verified : { ...verified, rateLimit };
    },
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

/**
 * What an operator does to accounts (`latchkey users add|passwd|remove`) is a security event
 * too (the audit trail): who, never the password.
 */
function withOwnerEvents(directory: OwnerDirectory, events: ProviderEvents): OwnerDirectory {
  return {
    ...directory,
    async create(username: string, password: string) {
      const owner = await directory.create(username, password);
      events.emit('owner.created', { ownerId: owner.id, source: owner.source });
      return owner;
    },
    async setPassword(username: string, password: string) {
      await directory.setPassword(username, password);
      const owner = await directory.get(username);
      events.emit('owner.password-set', { ownerId: owner.id });
    },
    async remove(reference: string) {
      const owner = await directory.remove(reference);
      events.emit('owner.removed', { ownerId: owner.id, source: owner.source });
      return owner;
    },
    /**
     * A wrong password is a security event (the audit trail), told by the account it was for:
     * never by the username as typed, where a person sometimes types their password
     * (docs/security.md "The audit trail").
     */
    async authenticate(username: string, password: string) {
      const { owner, account } = await directory.check(username, password);
      if (owner === undefined) {
        events.emit(
          'owner.sign-in-refused',
          account === undefined
            ? { kind: 'local', reason: 'unknown-username' }
            : { kind: 'local', reason: 'password', ownerId: account.id },
        );
      }
      return owner;
    },
  };
}

/** §2.2: the owner's decision, each one a security event. */
function createAuthorizationDesk(
  deps: AuthorizationDependencies,
  events: ProviderEvents,
  owners: OwnerDirectory,
): Provider['authorization'] {
  // Described once, then answered: the store re-checks the request as it writes (§2.2).
  async function approve(
    request: string | AuthorizationRequest,
    ownerId: string,
    options?: ApproveOptions,
  ) {
    const asked =
      typeof request === 'string' ? await describeAuthorization(deps, request) : request;
    const approval = await approveAuthorization(deps, asked, ownerId, options);
    events.emit('authorization.granted', {
      ownerId,
      clientKey: asked.client.key,
      scope: options?.scope,
      lifetime: options?.lifetime,
    });
    if (await rememberConsent(deps, asked.client, ownerId, approval.scope)) {
      events.emit('consent.remembered', {
        ownerId,
        clientKey: asked.client.key,
        scope: approval.scope,
      });
    }
    return approval;
  }
  async function approveStanding(
    asked: AuthorizationRequest,
    ownerId: string,
    options: { readonly liveGrant: boolean },
  ) {
    const reason = await standingConsent(deps, asked, ownerId, options);
    if (reason === undefined) return undefined;
    const approval = await approveAuthorization(deps, asked, ownerId);
    events.emit('authorization.automatic', {
      ownerId,
      clientKey: asked.client.key,
      reason,
      scope: approval.scope,
    });
    return approval;
  }
  async function deny(token: string, ownerId?: string) {
    const asked = await describeAuthorization(deps, token);
    const denied = await denyAuthorization(deps, asked);
    events.emit('authorization.denied', { ownerId, clientKey: asked.client.key });
    return denied;
  }
  return {
    describe: (token: string) => describeAuthorization(deps, token),
    approve,
    /**
     * Approves for a person of the embedder's own user base, named by subject: the owner is
     * created on first use (no password), its name kept current. `source` defaults to
     * `delegated`.
     * @example await provider.authorization.approveFor(token, { subject: 'user-42', name: 'Ada' });
     */
    async approveFor(token, person, options) {
      // Check the request first, so a dead link creates no owner.
      const asked = await describeAuthorization(deps, token);
      const owner = await owners.signInExternal({
        ...person,
        source: person.source ?? 'delegated',
      });
      return approve(asked, owner.id, options);
    },
    approveStanding,
    deny,
  };
}
