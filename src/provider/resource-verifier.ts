/**
 * §3 as the provider offers it: a protected resource request verified by the pipeline
 * (verify/pipeline.ts, which runs the rate limits with it), then, off the verified path, the
 * token's last use and device hint batched (upkeep.ts) and the client's usage counted (clients/usage.ts).
 */
import { OAuthError } from '../protocol/index.ts';
import type { VerifiedResourceRequest } from './caller.ts';
import type { UsageMeter } from './clients/usage.ts';
import type { ResourceOptions } from './provider.ts';
import type { IncomingRequest } from './request.ts';
import type { Upkeep } from './upkeep.ts';
import type { RateLimits } from './verify/rate-limits.ts';
import { verifyResourceRequest, type VerifyDependencies } from './verify/verify-request.ts';

export interface ResourceVerifierParts {
  readonly resourceDeps: VerifyDependencies & { readonly rateLimits: RateLimits };
  readonly usage: UsageMeter;
  readonly upkeep: Upkeep;
}

export function createResourceVerifier(parts: ResourceVerifierParts) {
  const { resourceDeps, usage, upkeep } = parts;
  const { store, now } = resourceDeps;

  /**
   * A refusal in the client's usage; a store that cannot say whose key it is loses the count,
   * never the answer.
   */
  async function countRefusal(request: IncomingRequest, refusal: OAuthError): Promise<void> {
    try {
      await usage.countFailure(request, refusal.problem, now(), (key) => store.clients.find(key));
    } catch {
      // The store is away: its outage is reported by the next call that needs it.
    }
  }

  return async function verify(
    request: IncomingRequest,
    resource: ResourceOptions = {},
  ): Promise<VerifiedResourceRequest> {
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
    if (verified.caller.token !== null) {
      upkeep.recordUse(verified.caller.token, at, request.userAgent);
    }
    usage.countRequest(verified.caller.client.key, verified.caller.owner?.id, at);
    const rateLimit = resourceDeps.rateLimits.standing(verified.caller.client.key);
    return rateLimit === undefined ? verified : { ...verified, rateLimit };
  };
}
