/**
 * The hot path as data: each verification (RFC 5849 §3.2) is a list of steps run in order,
 * cheap checks first, each refusal naming the first thing that is wrong. A step says what it
 * checks, what it may answer and the section it follows; docs/decisions.md "Verification
 * steps" is generated from these lists (scripts/generate-verification-docs.ts).
 */
import { OAuthError, isFormContentType } from '../../protocol/index.ts';
import type { OAuthProblem } from '../../protocol/index.ts';
import { describeCaller } from '../caller.ts';
import { checkLaunchRequest, checkLaunchSigner, refusedLaunch } from '../lti/lti-launch.ts';
import { checkBodyHash } from './check-body-hash.ts';
import { checkChannel } from './check-channel.ts';
import { rememberNonce } from './check-nonce.ts';
import { checkProtocolParameters } from './check-protocol-parameters.ts';
import { checkScope, identifyCaller } from './check-scope.ts';
import { checkClientMethod, signatureMatches } from './check-signature.ts';
import { checkPreviousCredential } from './previous-credential.ts';
import { checkClientEnabled, checkTokenStanding } from './check-standing.ts';
import { checkTimestamp } from './check-timestamp.ts';
import { loadCredentials } from './load-credentials.ts';
import type { Verification } from './verification.ts';

/** An answer a step may give: the status and the `oauth_problem`. */
export interface Refusal {
  readonly status: number;
  readonly problem: OAuthProblem;
}

export interface VerificationStep {
  /** What the step checks (a row of the docs' table). */
  readonly name: string;
  /** Every answer it may give; empty when it refuses nothing. */
  readonly refuses: readonly Refusal[];
  /** The RFC 5849 section it follows, or what else decides it, in parentheses. */
  readonly rfc: string;
  /** Throws OAuthError to refuse; a promise only when it waits for I/O. */
  readonly run: (verification: Verification) => void | Promise<void>;
}

/** What a refusal becomes, once any step refused (counted, reshaped). */
export interface RefusalStep {
  readonly name: string;
  readonly refuses: readonly Refusal[];
  readonly rfc: string;
  readonly run: (verification: Verification, error: OAuthError) => Promise<OAuthError>;
}

export interface Pipeline {
  /** Which requests it verifies. */
  readonly name: string;
  readonly steps: readonly VerificationStep[];
  readonly refused?: RefusalStep | undefined;
}

const refusal = (status: number, problem: OAuthProblem): Refusal => ({ status, problem });
const TOO_MANY = [refusal(429, 'rate_limit_exceeded')];

const protocolParameters: VerificationStep = {
  name: 'the protocol parameters, present, single, well-formed, allowed here (each collected once)',
  refuses: [
    refusal(400, 'parameter_absent'),
    refusal(401, 'parameter_absent'),
    refusal(400, 'parameter_rejected'),
    refusal(400, 'signature_method_rejected'),
    refusal(400, 'version_rejected'),
  ],
  rfc: '§3.1, §3.5',
  run(v) {
    const request = v.request;
    const form = isFormContentType(request.contentType);
    v.protocol = checkProtocolParameters(v.parameters(), v.options, v.deps.policy, {
      form,
      otherBody: !form && request.rawBody !== undefined && request.rawBody.length > 0,
    });
  },
};

const channel: VerificationStep = {
  name: 'the channel: TLS where secrets travel',
  refuses: [refusal(403, 'https_required'), refusal(400, 'signature_method_rejected')],
  rfc: '§2.1, §2.3, §3.4.4',
  run: (v) => checkChannel(v.request.secure, v.options.kind, v.protocol!.signatureMethod),
};

const timestamp: VerificationStep = {
  name: 'the timestamp window',
  refuses: [refusal(401, 'timestamp_refused')],
  rfc: '§3.3',
  run(v) {
    v.nowMs = v.deps.now();
    const window = v.deps.policy.timestampWindowSeconds;
    checkTimestamp(v.protocol!.timestamp, Math.floor(v.nowMs / 1000), window);
  },
};

const credentials: VerificationStep = {
  name: 'the client and token exist (no I/O when cached)',
  refuses: [refusal(401, 'consumer_key_unknown'), refusal(401, 'token_rejected')],
  rfc: '§3.2',
  run: loadCredentials,
};

const clientMethod: VerificationStep = {
  name: "the client's method and key material",
  refuses: [refusal(400, 'signature_method_rejected')],
  rfc: '§3.4',
  run: (v) => checkClientMethod(v.loaded!.client, v.protocol!),
};

const signature: VerificationStep = {
  name: "the signature, in constant time (after a failure: the client's previous credential in its overlap)",
  refuses: [refusal(401, 'signature_invalid')],
  rfc: '§3.4',
  run(v) {
    if (signatureMatches(v.request, v.parameters(), v.protocol!, v.loaded!)) {
      v.signatureVerified = true;
      return;
    }
    return checkPreviousCredential(v).then(() => {
      v.signatureVerified = true;
    });
  },
};

const clientEnabled: VerificationStep = {
  name: 'the client is enabled (told only to itself)',
  refuses: [refusal(401, 'consumer_key_rejected')],
  rfc: '§3.2',
  run: (v) => checkClientEnabled(v.loaded!.client),
};

const bodyHash: VerificationStep = {
  name: 'the body matches oauth_body_hash',
  refuses: [refusal(401, 'body_hash_invalid')],
  rfc: '(Request Body Hash extension)',
  run: (v) => checkBodyHash(v.protocol!, v.request.rawBody),
};

const nonce: VerificationStep = {
  name: 'the nonce, insert-if-absent',
  refuses: [refusal(401, 'nonce_used')],
  rfc: '§3.3',
  run: (v) => rememberNonce(v.deps.store, v.deps.policy, v.protocol!, v.loaded!.client.key),
};

const tokenStanding: VerificationStep = {
  name: 'the token is not revoked or expired',
  refuses: [refusal(401, 'token_revoked'), refusal(401, 'token_expired')],
  rfc: '§3.2',
  run(v) {
    const { kind, tokenMayBeExpired } = v.options;
    checkTokenStanding(v.loaded!.tokenCredential, v.nowMs, kind, tokenMayBeExpired);
  },
};

const failuresBlocked: VerificationStep = {
  name: 'the source is not over its failure limit (rate-limits.ts; no I/O)',
  refuses: TOO_MANY,
  rfc: '(server)',
  run: (v) => v.deps.rateLimits?.checkBlocked(v),
};

const requestRate: VerificationStep = {
  name: "the client's request rate (rate-limits.ts; no I/O far from its limit)",
  refuses: TOO_MANY,
  rfc: '(server)',
  run: (v) => v.deps.rateLimits?.countRequest(v.loaded!.client),
};

const scope: VerificationStep = {
  name: "the token carries the scope required, within its client's scope ceiling",
  refuses: [refusal(403, 'permission_denied')],
  rfc: '§3.2',
  run: (v) => checkScope(v.loaded!.client, v.loaded!.tokenCredential, v.options.scope),
};

const caller: VerificationStep = {
  name: "the caller: the owner, from the store's cache, secrets stripped",
  refuses: [refusal(401, 'token_revoked')],
  rfc: '§3',
  run: identifyCaller,
};

const launchShape: VerificationStep = {
  name: 'the request is shaped as a Basic LTI launch (a form POST, message type, version, link)',
  refuses: [refusal(400, 'parameter_rejected'), refusal(400, 'parameter_absent')],
  rfc: '(LTI 1.1)',
  run(v) {
    v.launchFields = checkLaunchRequest(v.request);
  },
};

const launchSigner: VerificationStep = {
  name: 'the launch is signed with a method that has a nonce, by the consumer alone',
  refuses: [refusal(400, 'signature_method_rejected'), refusal(400, 'parameter_rejected')],
  rfc: '§3.4.4, (LTI 1.1)',
  run: (v) => checkLaunchSigner(v.protocol!.signatureMethod, v.protocol!.token),
};

const launchCaller: VerificationStep = {
  name: 'the caller: the LMS (two-legged)',
  refuses: [],
  rfc: '§3',
  run(v) {
    v.caller = describeCaller(v.loaded!.client, undefined, undefined);
  },
};

const failuresCounted: RefusalStep = {
  name: 'a refusal by the client (400, 401) is counted for its source; once over the limit, the answer is 429',
  refuses: TOO_MANY,
  rfc: '(server)',
  async run(v, error) {
    const { rateLimits, store } = v.deps;
    if (rateLimits === undefined) return error;
    return rateLimits.countFailure(v, error, (key) => store.clients.find(key));
  },
};

const launchRefused: RefusalStep = {
  name: `${failuresCounted.name}; after the signature verified the form, it carries the launch's return URL`,
  refuses: TOO_MANY,
  rfc: '(server), (LTI 1.1)',
  async run(v, error) {
    const counted = await failuresCounted.run(v, error);
    const formSigned = v.signatureVerified && v.protocol!.signatureMethod.usesBaseString;
    return formSigned ? refusedLaunch(counted, v.launchFields!) : counted;
  },
};

/** Steps every signed request goes through. */
const REQUEST_STEPS: readonly VerificationStep[] = [
  protocolParameters,
  channel,
  timestamp,
  credentials,
  clientMethod,
  signature,
  clientEnabled,
  bodyHash,
  nonce,
  tokenStanding,
];

/** The flow's signed requests (§2.1, §2.3, a renewal, an invalidation). */
export const requestPipeline: Pipeline = { name: 'flow', steps: REQUEST_STEPS };

/** §3: a protected resource request, within its client's rate limits. */
export const resourcePipeline: Pipeline = {
  name: 'resource',
  steps: [failuresBlocked, ...REQUEST_STEPS, requestRate, scope, caller],
  refused: failuresCounted,
};

/** A Basic LTI 1.1 launch (docs/lti.md): a request signed by the LMS alone. */
export const ltiLaunchPipeline: Pipeline = {
  name: 'LTI launch',
  steps: [failuresBlocked, launchShape, ...REQUEST_STEPS, launchSigner, requestRate, launchCaller],
  refused: launchRefused,
};

export const pipelines: readonly Pipeline[] = [
  requestPipeline,
  resourcePipeline,
  ltiLaunchPipeline,
];

/** Runs each step in order; the first refusal ends it (through `refused`, when set). */
export async function runPipeline(pipeline: Pipeline, verification: Verification): Promise<void> {
  try {
    for (const step of pipeline.steps) {
      const pending = step.run(verification);
      if (pending !== undefined) await pending;
    }
  } catch (error) {
    const refused = pipeline.refused;
    if (refused === undefined || !(error instanceof OAuthError)) throw error;
    throw await refused.run(verification, error);
  }
}
