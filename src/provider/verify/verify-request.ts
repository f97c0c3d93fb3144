/**
 * The hot path's doors: one signed request verified (RFC 5849 §3.2) by running its pipeline
 * (pipeline.ts: the steps, in order, with what each refuses; docs/decisions.md
 * "Verification steps"), and what the verification found handed back.
 */
import type { VerifiedResourceRequest } from '../caller.ts';
import { readLaunch } from '../lti/lti-launch.ts';
import type { LtiLaunch } from '../lti/lti-launch.ts';
import type { IncomingRequest, VerifiedRequest } from '../request.ts';
import { ltiLaunchPipeline, requestPipeline, resourcePipeline, runPipeline } from './pipeline.ts';
import { Verification } from './verification.ts';
import type { VerifyDependencies, VerifyOptions } from './verification.ts';

export type { VerifyDependencies, VerifyOptions } from './verification.ts';

export interface ResourceVerifyOptions {
  readonly tokenRequired: boolean;
  readonly requireBodyHash: boolean;
  /** Scope names the token must carry; undefined or '' requires none. */
  readonly scope: string | undefined;
}

/** A verified Basic LTI launch: the LMS as the caller (two-legged), and the launch's fields. */
export interface VerifiedLtiLaunch extends VerifiedResourceRequest {
  readonly launch: LtiLaunch;
}

/** A signed request of the flow (§2.1, §2.3, a renewal, an invalidation), verified. */
export async function verifyRequest(
  deps: VerifyDependencies,
  request: IncomingRequest,
  options: VerifyOptions,
): Promise<VerifiedRequest> {
  const verification = new Verification(deps, request, options);
  await runPipeline(requestPipeline, verification);
  const loaded = verification.loaded!;
  return {
    client: loaded.client,
    protocol: verification.protocol!,
    parameters: verification.parameters(),
    tokenCredential: loaded.tokenCredential,
    temporaryCredential: loaded.temporaryCredential,
  };
}

/**
 * §3: a protected resource request, verified within its client's rate limits, with its scope
 * and its caller: client, owner, scope and token, no secrets.
 */
export async function verifyResourceRequest(
  deps: VerifyDependencies,
  request: IncomingRequest,
  options: ResourceVerifyOptions,
): Promise<VerifiedResourceRequest> {
  const verification = new Verification(deps, request, {
    kind: 'resource',
    tokenRequired: options.tokenRequired,
    requireBodyHash: options.requireBodyHash,
    scope: options.scope,
  });
  await runPipeline(resourcePipeline, verification);
  return { caller: verification.caller!, parameters: signedParameters(verification) };
}

/**
 * A Basic LTI 1.1 launch (docs/lti.md), verified as a request signed by the LMS alone, with
 * the same window and nonce store as every request, within the LMS's rate limits.
 */
export async function verifyLtiLaunch(
  deps: VerifyDependencies,
  request: IncomingRequest,
): Promise<VerifiedLtiLaunch> {
  const verification = new Verification(deps, request, {
    kind: 'resource',
    tokenRequired: false,
  });
  await runPipeline(ltiLaunchPipeline, verification);
  return {
    caller: verification.caller!,
    parameters: signedParameters(verification),
    launch: readLaunch(verification.launchFields!, verification.loaded!.client.key),
  };
}

/** The non-protocol parameters the signature covered, as the caller's answer shows them. */
function signedParameters(verification: Verification): VerifiedResourceRequest['parameters'] {
  const { query, form, header } = verification.parameters();
  return { query, form, header };
}
