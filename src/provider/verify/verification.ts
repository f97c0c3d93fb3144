/**
 * One request's verification as it goes through the pipeline (pipeline.ts): the request, what
 * was asked of it, and what each step found, handed to the steps after it. The parameters are
 * collected once (§3.1, §3.5) and every step, the rate limits included, reads them from here.
 */
import { collectParameters } from '../../protocol/index.ts';
import type { CollectedParameters } from '../../protocol/index.ts';
import type { Store } from '../../store/types.ts';
import type { VerifiedCaller } from '../caller.ts';
import type { LaunchFields } from '../lti/lti-launch.ts';
import type { Policy } from '../policy.ts';
import type { IncomingRequest, ProtocolParameters, RequestKind } from '../request.ts';
import type { CredentialKeys } from './credential-keys.ts';
import type { PreviousUses } from './previous-credential.ts';
import type { LoadedCredentials } from './load-credentials.ts';
import type { RateLimits, RequestSource } from './rate-limits.ts';

export interface VerifyOptions {
  readonly kind: RequestKind;
  /** For resource requests: false accepts a request signed by the client alone. */
  readonly tokenRequired: boolean;
  /** For resource requests: a body that is not form-encoded must carry oauth_body_hash. */
  readonly requireBodyHash?: boolean | undefined;
  /** The token's standing lets an expired token through (its caller decides what it may do). */
  readonly tokenMayBeExpired?: boolean | undefined;
  /** For resource requests: scope names the token must carry; undefined or '' requires none. */
  readonly scope?: string | undefined;
}

export interface VerifyDependencies {
  readonly store: Store;
  readonly policy: Policy;
  /** The provider's prepared keys (credential-keys.ts). */
  readonly keys: CredentialKeys;
  /** Milliseconds since the epoch. */
  readonly now: () => number;
  /** Per-client rate limits on protected resource requests and launches; none when absent. */
  readonly rateLimits?: RateLimits | undefined;
  /** Where accepted previous credentials are noted for upkeep (previous-credential.ts). */
  readonly previousUses?: PreviousUses | undefined;
}

export class Verification implements RequestSource {
  readonly deps: VerifyDependencies;
  readonly request: IncomingRequest;
  readonly options: VerifyOptions;
  /** The provider's clock when the timestamp was checked (ms). */
  nowMs = 0;
  /** The typed protocol parameters, once checked. */
  protocol: ProtocolParameters | undefined = undefined;
  /** The client and token with their key material, once loaded. */
  loaded: LoadedCredentials | undefined = undefined;
  /** The signature checked out (later steps may still refuse). */
  signatureVerified = false;
  /** Who is calling, once known. */
  caller: VerifiedCaller | undefined = undefined;
  /** An LTI launch's form fields, once the request is shaped as a launch. */
  launchFields: LaunchFields | undefined = undefined;
  #parameters: CollectedParameters | undefined = undefined;
  #unreadable: unknown = undefined;

  constructor(deps: VerifyDependencies, request: IncomingRequest, options: VerifyOptions) {
    this.deps = deps;
    this.request = request;
    this.options = options;
  }

  get address(): string | undefined {
    return this.request.address;
  }

  /**
   * Every parameter of the request (§3.4.1.3.1), collected on the first call; later calls
   * answer the same (or throw the same refusal: a malformed request stays malformed).
   */
  parameters(): CollectedParameters {
    if (this.#parameters !== undefined) return this.#parameters;
    if (this.#unreadable !== undefined) throw this.#unreadable;
    try {
      return (this.#parameters = collectParameters(this.request));
    } catch (error) {
      this.#unreadable = error;
      throw error;
    }
  }

  /** The client key the request names, if it can be read (a refused request may be malformed). */
  claimedKey(): string | undefined {
    try {
      return this.parameters().protocol.get('oauth_consumer_key');
    } catch {
      return undefined;
    }
  }
}
