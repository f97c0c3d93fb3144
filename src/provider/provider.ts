/**
 * The provider: every rule of the service behind one object, framework-free. HTTP adapters,
 * the web pages and the CLI all go through it, so a rule lives in one place.
 */
import { EventEmitter } from 'node:events';
import { OAuthError } from '../protocol/index.ts';
import type { Store } from '../store/types.ts';
import { approveAuthorization, describeAuthorization, denyAuthorization } from './authorization.ts';
import type { ApproveOptions } from './authorization.ts';
import { describeCaller } from './caller.ts';
import { createCredentialKeys } from './credential-keys.ts';
import type { VerifiedResourceRequest } from './caller.ts';
import { createClientRegistry } from './clients.ts';
import { createLoginDesk } from './logins.ts';
import { createOwnerDirectory } from './owners.ts';
import type { ExternalIdentity } from './owners.ts';
import { resolvePolicy } from './policy.ts';
import type { Policy } from './policy.ts';
import type { IncomingRequest } from './request.ts';
import { scopeIncludes } from './scope.ts';
import { createSessionBook } from './sessions.ts';
import { issueTemporaryCredentials } from './temporary-credentials.ts';
import { exchangeTokenCredentials } from './token-credentials.ts';
import { createTokenLedger } from './tokens.ts';
import { exportRecords } from './transfer/export.ts';
import type { ExportOptions } from './transfer/export.ts';
import { createImport } from './transfer/import.ts';
import type { ImportOptions } from './transfer/import.ts';
import { verifyRequest } from './verify-request.ts';

export interface ProviderOptions {
  readonly store: Store;
  readonly policy?: Partial<Policy> | undefined;
  /** Milliseconds since the epoch; injectable so expiry can be tested without waiting. */
  readonly now?: (() => number) | undefined;
  /** How often last-use times are written and expired rows purged (ms). */
  readonly maintenanceIntervalMs?: number | undefined;
}

export interface ResourceOptions {
  /** false accepts a request signed by the client alone (two-legged). Default true. */
  readonly tokenRequired?: boolean | undefined;
  /** Scope names the token must carry (403 permission_denied otherwise). */
  readonly scope?: string | undefined;
}

export function createProvider(options: ProviderOptions) {
  const store = options.store;
  const policy = resolvePolicy(options.policy);
  const now = options.now ?? Date.now;
  const events = new EventEmitter();
  const deps = { store, policy, now, keys: createCredentialKeys() };
  const lastUse = new Map<string, number>();

  async function flushLastUse(): Promise<void> {
    if (lastUse.size === 0) return;
    const batch = new Map(lastUse);
    lastUse.clear();
    await store.tokenCredentials.touch(batch);
  }

  async function maintain(): Promise<void> {
    const at = now();
    await flushLastUse();
    await store.nonces.purgeExpired(Math.floor(at / 1000));
    await store.temporaryCredentials.purgeExpired(at);
    await store.sessions.purgeExpired(at);
    await store.loginChallenges.purgeExpired(at);
  }

  let timer: NodeJS.Timeout | undefined;
  const owners = createOwnerDirectory(store);
  const deny = (token: string) => denyAuthorization(deps, token);

  return {
    policy,
    store,
    events,
    clients: createClientRegistry(store, policy.signatureMethods, events),
    owners,
    tokens: createTokenLedger(store, policy, now, events),
    /** Signed-in browsers of the pages. */
    sessions: createSessionBook(store, now, events),
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
      approve: (token: string, ownerId: string, approve?: ApproveOptions) =>
        approveAuthorization(deps, token, ownerId, approve),
      /**
       * Approves for a person of the embedder's own user base, named by subject: the owner is
       * created on first use (no password), its name kept current. `source` defaults to
       * `delegated`.
       * @example await provider.authorization.approveFor(token, { subject: 'user-42', name: 'Ada' });
       */
      async approveFor(
        token: string,
        person: Omit<ExternalIdentity, 'source'> & { readonly source?: ExternalIdentity['source'] },
        approve?: ApproveOptions,
      ) {
        // Check the request first, so a dead link creates no owner.
        await describeAuthorization(deps, token);
        const owner = await owners.signInExternal({
          ...person,
          source: person.source ?? 'delegated',
        });
        return approveAuthorization(deps, token, owner.id, approve);
      },
      deny,
    },

    /** §2.3 endpoint. */
    exchangeTokenCredentials: (request: IncomingRequest) => exchangeTokenCredentials(deps, request),

    /**
     * §3: a protected resource request, with the token's scope enforced, and its caller. The
     * owner comes from the store's cache (no round trip in the common case).
     */
    async verifyResourceRequest(
      request: IncomingRequest,
      resource: ResourceOptions = {},
    ): Promise<VerifiedResourceRequest> {
      const verified = await verifyRequest(deps, request, {
        kind: 'resource',
        tokenRequired: resource.tokenRequired ?? true,
      });
      const token = verified.tokenCredential;
      if (resource.scope !== undefined && resource.scope !== '') {
        if (token === undefined || !scopeIncludes(token.scope, resource.scope)) {
          throw new OAuthError(
            'permission_denied',
            `This resource requires the scope: ${resource.scope}.`,
          );
        }
      }
      if (token === undefined)
        return { ...verified, caller: describeCaller(verified, token, undefined) };
      const owner = await store.owners.findById(token.ownerId);
      // Removing an owner removes its tokens: only a race with that removal gets here.
      if (owner === undefined)
        throw new OAuthError('token_revoked', 'The owner of this token was removed.');
      lastUse.set(token.token, now());
      return { ...verified, caller: describeCaller(verified, token, owner) };
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

    async close(): Promise<void> {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      await flushLastUse();
    },
  };
}

export type Provider = ReturnType<typeof createProvider>;
