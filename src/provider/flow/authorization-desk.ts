/**
 * §2.2 as the provider offers it: describe the request, then approve (asked, for a person of
 * the embedder's own users, or at once where consent stands) or deny; each answer a security
 * event.
 */
import type { ExternalIdentity, OwnerDirectory } from '../accounts/owners.ts';
import type { ProviderEvents } from '../events.ts';
import type { Client } from '../../store/types.ts';
import { approveAuthorization, describeAuthorization, denyAuthorization } from './authorization.ts';
import type {
  ApproveOptions,
  Approval,
  AuthorizationDependencies,
  AuthorizationRequest,
} from './authorization.ts';
import { rememberConsent, standingConsent } from './standing-consent.ts';

/** §2.2: the owner's decision, for the pages and for embedders who render their own. */
export interface AuthorizationDesk {
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
}

/** §2.2: the owner's decision, each one a security event. */
export function createAuthorizationDesk(
  deps: AuthorizationDependencies,
  events: ProviderEvents,
  owners: OwnerDirectory,
): AuthorizationDesk {
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
