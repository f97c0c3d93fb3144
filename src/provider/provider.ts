/**
 * The provider: every rule of the service behind one object, framework-free. HTTP adapters,
 * the web pages and the CLI all go through it, so a rule lives in one place.
 */
import { OAuthError } from '../protocol/index.ts';
import type { SealedSecretStore, Store } from '../store/types.ts';
import {
  approveAuthorization,
  describeAuthorization,
  denyAuthorization,
} from './flow/authorization.ts';
import type { ApproveOptions } from './flow/authorization.ts';
import { describeCaller } from './caller.ts';
import { createCredentialKeys } from './verify/credential-keys.ts';
import type { VerifiedResourceRequest } from './caller.ts';
import { cacheReportOf } from '../store/cached.ts';
import { createClientRegistry } from './clients/clients.ts';
import { createConnectionBook } from './flow/connections.ts';
import { createLoginDesk } from './accounts/logins.ts';
import { checkLaunchRequest, readLaunch, refusedLaunch } from './lti/lti-launch.ts';
import type { LtiLaunch } from './lti/lti-launch.ts';
import { createOwnerDirectory } from './accounts/owners.ts';
import type { ExternalIdentity } from './accounts/owners.ts';
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
import { verifyRequest, verifyResourceRequest } from './verify/verify-request.ts';
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

/** A verified Basic LTI launch: the LMS as the caller (two-legged), and the launch's fields. */
export interface VerifiedLtiLaunch extends VerifiedResourceRequest {
  readonly launch: LtiLaunch;
}

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
  /** Signed-in browsers of the pages. */
  readonly sessions: SessionBook;
  /** Sign-in counters per (account, address) and per address (`policy.signIn`). */
  readonly signIns: SignInThrottle;
  /** Sign-ins handed to an OpenID Connect provider or a login app (docs/identity.md). */
  readonly logins: LoginDesk;
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
  /** Stops upkeep and writes pending last-use times; closes the store when it owns it. */
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
  const deps = { store, policy, now, keys: createCredentialKeys() };
  const rateLimits = createRateLimits(store.rateCounters, policy, now);
  const resourceDeps = { ...deps, rateLimits };
  const lastUse = new Map<string, number>();
  const usage = createUsageMeter(store.usage);

  async function flushLastUse(): Promise<void> {
    if (lastUse.size === 0) return;
    const batch = new Map(lastUse);
    lastUse.clear();
    await store.tokenCredentials.touch(batch);
  }

  async function maintain(): Promise<void> {
    // Forgetting cannot be undone: never at a time the wall clock was merely stepped to.
    const at = purgeNow();
    await flushLastUse();
    await usage.flush();
    await usage.purge(at);
    await store.nonces.purgeExpired(Math.floor(at / 1000));
    await store.temporaryCredentials.purgeExpired(at);
    await store.sessions.purgeExpired(at);
    await store.loginChallenges.purgeExpired(at);
    await store.audit.purgeBefore(at - policy.auditRetentionDays * 86_400_000);
  }

  /**
   * A refusal in the client's usage (clients/usage.ts). A store that cannot say whose key it
   * is loses the count, never the answer: the refusal is answered as it is.
   */
  async function countRefusal(
    request: IncomingRequest,
    refusal: OAuthError,
    clientOf: (key: string) => Promise<Client | undefined>,
  ): Promise<void> {
    try {
      await usage.countFailure(request, refusal.problem, now(), clientOf);
    } catch {
      // The store is away: its outage is reported by the next call that needs it.
    }
  }

  let timer: NodeJS.Timeout | undefined;
  let storeClosed = false;
  const audit = createAuditTrail(store, events, now);
  const directory = createOwnerDirectory(store);
  // What an operator does to accounts (`latchkey users add|passwd|remove`) is a security
  // event too (the audit trail): who, never the password.
  const owners: typeof directory = {
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
    return approval;
  }
  async function deny(token: string, ownerId?: string) {
    const asked = await describeAuthorization(deps, token);
    const denied = await denyAuthorization(deps, asked);
    events.emit('authorization.denied', { ownerId, clientKey: asked.client.key });
    return denied;
  }
  const tokens = createTokenLedger(store, policy, now, events);

  const provider: Provider = {
    policy,
    events,
    audit,
    secrets: store.secrets,
    clients: createClientRegistry(store, policy.signatureMethods, events),
    owners,
    tokens,
    /** An owner's connected apps, and ending one (the pages' "Connected apps"). */
    connections: createConnectionBook(store, now, flushLastUse, tokens.revokeGrant),
    /** Signed-in browsers of the pages. */
    sessions: createSessionBook(store, now, events),
    /** Sign-in counters (policy.signIn). */
    signIns: createSignInThrottle(store, now, policy.signIn, events),
    /** Sign-ins handed to an OpenID Connect provider or a login app (docs/identity.md). */
    logins: createLoginDesk({ store, now, owners, events, deny }),
    now,

    /** Credentials moved in and out in bulk (`latchkey import` / `export`, docs/import.md). */
    transfer: {
      /** An import of one file: check every record, then write clients, then tokens. */
      importer: (options?: ImportOptions) =>
        createImport({ store, policy, now, events, owners }, options),
      export: (options?: ExportOptions) => exportRecords(store, options),
    },

    /** §2.1 endpoint. */
    issueTemporaryCredentials: (request: IncomingRequest) =>
      issueTemporaryCredentials(deps, request),

    /** §2.2 endpoint, for the pages, and for embedders who render their own. */
    authorization: {
      describe: (token: string) => describeAuthorization(deps, token),
      approve,
      /**
       * Approves for a person of the embedder's own user base, named by subject: the owner is
       * created on first use (no password), its name kept current. `source` defaults to
       * `delegated`.
       * @example await provider.authorization.approveFor(token, { subject: 'user-42', name: 'Ada' });
       */
      async approveFor(
        token: string,
        person: Omit<ExternalIdentity, 'source'> & { readonly source?: ExternalIdentity['source'] },
        options?: ApproveOptions,
      ) {
        // Check the request first, so a dead link creates no owner.
        const asked = await describeAuthorization(deps, token);
        const owner = await owners.signInExternal({
          ...person,
          source: person.source ?? 'delegated',
        });
        return approve(asked, owner.id, options);
      },
      deny,
    },

    /**
     * §2.3 endpoint; with `oauth_session_handle`, the session extension's renewal of the token
     * credential the request is signed with.
     */
    exchangeTokenCredentials: (request: IncomingRequest) =>
      carriesSessionHandle(request)
        ? renewTokenCredentials({ ...deps, events }, request)
        : exchangeTokenCredentials(deps, request),

    /** The client ends the token it signs with (`POST /oauth/invalidate_token`). */
    invalidateToken: (request: IncomingRequest) => invalidateToken({ ...deps, events }, request),

    /**
     * §3: a protected resource request, verified (verify-request.ts, steps 1–13), and its
     * caller: client, owner, scope and token, no secrets. The owner comes from the store's
     * cache (no round trip in the common case). Within the client's rate limits
     * (rate-limits.ts): a source over its failure limit is refused before any work, and each
     * failure is counted.
     */
    async verifyResourceRequest(
      request: IncomingRequest,
      resource: ResourceOptions = {},
    ): Promise<VerifiedResourceRequest> {
      rateLimits.checkBlocked(request);
      let verified: VerifiedResourceRequest;
      try {
        verified = await verifyResourceRequest(resourceDeps, request, {
          tokenRequired: resource.tokenRequired ?? true,
          requireBodyHash: resource.requireBodyHash ?? false,
          scope: resource.scope,
        });
      } catch (error) {
        if (!(error instanceof OAuthError)) throw error;
        // One look-up of the claimed key serves both counts (the key is the request's).
        let claimed: Promise<Client | undefined> | undefined;
        const clientOf = (key: string) => (claimed ??= store.clients.find(key));
        const refusal = await rateLimits.countFailure(request, error, clientOf);
        await countRefusal(request, refusal, clientOf);
        throw refusal;
      }
      const at = now();
      if (verified.caller.token !== null) lastUse.set(verified.caller.token, at);
      usage.countRequest(verified.caller.client.key, verified.caller.owner?.id, at);
      const rateLimit = rateLimits.standing(verified.caller.client.key);
      return rateLimit === undefined ? verified : { ...verified, rateLimit };
    },

    /**
     * A Basic LTI 1.1 launch (docs/lti.md): shaped as a launch (checked first, no I/O), then
     * verified as a request signed by the LMS alone, with the same window and nonce store as
     * every request, and within the LMS's rate limits as every protected request is (a source
     * over its failure limit refused first, each failure and each launch counted). PLAINTEXT
     * is refused: it carries no nonce, so a launch could be replayed. A refusal after the
     * signature verified the form carries its return URL (LaunchRefusal); any other does not.
     */
    async verifyLtiLaunch(request: IncomingRequest): Promise<VerifiedLtiLaunch> {
      rateLimits.checkBlocked(request);
      let formSigned = false;
      try {
        const fields = checkLaunchRequest(request);
        const verified = await verifyRequest(deps, request, {
          kind: 'resource',
          tokenRequired: false,
          onSignatureVerified: (method) => (formSigned = method.usesBaseString),
        });
        if (!verified.protocol.signatureMethod.usesBaseString) {
          throw new OAuthError(
            'signature_method_rejected',
            'An LTI launch is signed with HMAC-SHA1 (a method with a nonce), not PLAINTEXT.',
          );
        }
        if (verified.tokenCredential !== undefined) {
          throw new OAuthError(
            'parameter_rejected',
            'An LTI launch is signed by the consumer alone; it takes no oauth_token.',
            { advice: { oauth_parameters_rejected: 'oauth_token' } },
          );
        }
        const counted = rateLimits.countRequest(verified.client);
        if (counted !== undefined) await counted;
        return {
          caller: describeCaller(verified.client, undefined, undefined),
          parameters: {
            query: verified.parameters.query,
            form: verified.parameters.form,
            header: verified.parameters.header,
          },
          launch: readLaunch(fields, verified.client.key),
        };
      } catch (error) {
        if (!(error instanceof OAuthError)) throw error;
        const refusal = await rateLimits.countFailure(request, error, (key) =>
          store.clients.find(key),
        );
        throw formSigned ? refusedLaunch(refusal, request) : refusal;
      }
    },

    /** Starts periodic upkeep (last-use writes, purges of expired nonces and credentials). */
    startMaintenance(): void {
      if (timer !== undefined) return;
      timer = setInterval(() => {
        maintain().catch((error: unknown) => events.emit('error.maintenance', error));
      }, options.maintenanceIntervalMs ?? 5000);
      timer.unref();
    },

    maintain,
    flushLastUse,
    usage: {
      days: (clientKey: string, days: number) => usage.days(clientKey, days, now()),
    },

    /** True when the store's backing services answer (for /readyz). */
    ping: (): Promise<boolean> => store.ping(),
    /** Nonces held (for the metrics). */
    nonceCount: (): Promise<number> => store.nonces.size(),
    /** The per-instance cache's counters, with a shared store; undefined without one. */
    cacheReport: () => cacheReportOf(store),

    async close(): Promise<void> {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      try {
        await flushLastUse();
        await usage.flush();
      } finally {
        // The store is closed even when the last writes fail.
        if (options.ownsStore === true && !storeClosed) {
          storeClosed = true;
          await store.close();
        }
      }
    },
  };
  return provider;
}
