/**
 * The hot path: verify one signed request (RFC 5849 §3.2). One step per row, in this order,
 * cheap checks first, each refusal naming the first thing that is wrong
 * (docs/decisions.md, "Verification steps"):
 *
 *   step                                           refuses with                       RFC 5849
 *   1. the protocol parameters, present, single,   400 parameter_absent / _rejected,  §3.1, §3.5
 *      well-formed, allowed here                     signature_method_rejected,
 *                                                    version_rejected
 *   2. the channel: TLS where secrets travel         403 https_required (flow),         §2.1, §2.3,
 *                                                    400 signature_method_rejected      §3.4.4
 *                                                    (PLAINTEXT)
 *   3. the timestamp window                          401 timestamp_refused              §3.3
 *   4. the client and token exist (no I/O when       401 consumer_key_unknown,          §3.2
 *      cached)                                       token_rejected
 *   5. the client's method and key material          400 signature_method_rejected      §3.4
 *   6. the signature, in constant time               401 signature_invalid              §3.4
 *   7. the client is enabled (told only to itself)   401 consumer_key_rejected          §3.2
 *   8. the body matches oauth_body_hash              401 body_hash_invalid              (extension)
 *   9. the nonce, insert-if-absent                   401 nonce_used                     §3.3
 *  10. the token is not revoked or expired           401 token_revoked / token_expired  §3.2
 * and for a protected resource request (verifyResourceRequest):
 *  11. the client's request rate (rate-limits.ts;    429 rate_limit_exceeded            (server)
 *      no I/O far from its limit)
 *  12. the token carries the scope required          403 permission_denied              §3.2
 *  13. the caller: the owner, from the store's       401 token_revoked (owner removed)  §3
 *      cache, secrets stripped
 */
import { collectParameters, isFormContentType, OAuthError } from '../../protocol/index.ts';
import type { CollectedParameters, SignatureMethod } from '../../protocol/index.ts';
import type { Store, TokenCredential } from '../../store/types.ts';
import { describeCaller } from '../caller.ts';
import type { VerifiedCaller, VerifiedResourceRequest } from '../caller.ts';
import type { Policy } from '../policy.ts';
import type { RateLimits } from './rate-limits.ts';
import type {
  IncomingRequest,
  ProtocolParameters,
  RequestKind,
  VerifiedRequest,
} from '../request.ts';
import { scopeIncludes } from '../scope.ts';
import { checkBodyHash } from './check-body-hash.ts';
import { checkChannel } from './check-channel.ts';
import { checkProtocolParameters } from './check-protocol-parameters.ts';
import { checkClientMethod, checkSignature } from './check-signature.ts';
import { checkTimestamp } from './check-timestamp.ts';
import { loadCredentials } from './load-credentials.ts';
import type { LoadedCredentials } from './load-credentials.ts';
import type { CredentialKeys } from './credential-keys.ts';

export interface VerifyOptions {
  readonly kind: RequestKind;
  /** For resource requests: false accepts a request signed by the client alone. */
  readonly tokenRequired: boolean;
  /** For resource requests: a body that is not form-encoded must carry oauth_body_hash. */
  readonly requireBodyHash?: boolean | undefined;
  /**
   * Told the signature method once the signature checked out (step 6), before the later
   * steps may still refuse: an LTI launch refused after it may trust its own form.
   */
  readonly onSignatureVerified?: ((method: SignatureMethod) => void) | undefined;
  /** Step 10 lets an expired token through (its caller decides what it may still do). */
  readonly tokenMayBeExpired?: boolean | undefined;
}

export interface ResourceVerifyOptions {
  readonly tokenRequired: boolean;
  readonly requireBodyHash: boolean;
  /** Scope names the token must carry; undefined or '' requires none. */
  readonly scope: string | undefined;
}

export interface VerifyDependencies {
  readonly store: Store;
  readonly policy: Policy;
  /** The provider's prepared keys (credential-keys.ts). */
  readonly keys: CredentialKeys;
  /** Milliseconds since the epoch. */
  readonly now: () => number;
  /** Per-client rate limits on protected resource requests (step 11); none when absent. */
  readonly rateLimits?: RateLimits | undefined;
}

export async function verifyRequest(
  deps: VerifyDependencies,
  request: IncomingRequest,
  options: VerifyOptions,
): Promise<VerifiedRequest> {
  const { store, policy } = deps;
  const parameters = collectParameters(request); // 1
  const protocol = readProtocolParameters(request, parameters, options, policy); // 1
  checkChannel(request.secure, options.kind, protocol.signatureMethod); // 2
  const nowMs = deps.now();
  checkTimestamp(protocol.timestamp, Math.floor(nowMs / 1000), policy.timestampWindowSeconds); // 3
  const loaded = await loadCredentials(store, deps.keys, protocol, options.kind); // 4
  const client = loaded.client;
  checkClientMethod(client, protocol); // 5
  checkSignature(request, parameters, protocol, loaded); // 6
  options.onSignatureVerified?.(protocol.signatureMethod);
  checkClientEnabled(loaded); // 7
  checkBodyHash(protocol, request.rawBody); // 8
  await rememberNonce(store, policy, protocol, client.key); // 9
  checkTokenStanding(loaded.tokenCredential, nowMs, options); // 10
  return {
    client,
    protocol,
    parameters,
    tokenCredential: loaded.tokenCredential,
    temporaryCredential: loaded.temporaryCredential,
  };
}

/** §3: a protected resource request, verified, with its scope and its caller. */
export async function verifyResourceRequest(
  deps: VerifyDependencies,
  request: IncomingRequest,
  options: ResourceVerifyOptions,
): Promise<VerifiedResourceRequest> {
  const verified = await verifyRequest(deps, request, {
    kind: 'resource',
    tokenRequired: options.tokenRequired,
    requireBodyHash: options.requireBodyHash,
  }); // 1–10
  const counted = deps.rateLimits?.countRequest(verified.client); // 11
  if (counted !== undefined) await counted;
  const token = verified.tokenCredential;
  checkScope(token, options.scope); // 12
  const caller = await identifyCaller(deps.store, verified, token); // 13
  const { query, form, header } = verified.parameters;
  const parameters = { query, form, header };
  return { caller, parameters };
}

/** 1. §3.1, §3.5: collected from header, body and query, each once, well-formed. */
function readProtocolParameters(
  request: IncomingRequest,
  parameters: CollectedParameters,
  options: VerifyOptions,
  policy: Policy,
): ProtocolParameters {
  const form = isFormContentType(request.contentType);
  return checkProtocolParameters(parameters, options, policy, {
    form,
    otherBody: !form && request.rawBody !== undefined && request.rawBody.length > 0,
  });
}

/** 7. After the signature, so only the client itself learns that it is disabled. */
function checkClientEnabled(loaded: LoadedCredentials): void {
  if (!loaded.client.disabled) return;
  throw new OAuthError(
    'consumer_key_rejected',
    'This client is disabled on this server; its requests are refused until it is enabled.',
  );
}

/**
 * 9. §3.3: a nonce is used once per (client, token, timestamp), recorded after the signature
 * so a forged request never burns a client's nonce. Kept for the window after its timestamp,
 * found by its key alone (store/types.ts NonceStore). PLAINTEXT may send neither (§3.4.4).
 */
async function rememberNonce(
  store: Store,
  policy: Policy,
  protocol: ProtocolParameters,
  clientKey: string,
): Promise<void> {
  if (protocol.nonce === undefined || protocol.timestamp === undefined) return;
  const first = await store.nonces.remember(
    {
      clientKey,
      token: protocol.token ?? '',
      timestamp: protocol.timestamp,
      nonce: protocol.nonce,
    },
    protocol.timestamp + policy.timestampWindowSeconds,
  );
  if (!first) throw new OAuthError('nonce_used', 'This nonce was already used; send a fresh one.');
}

/**
 * 10. §3.2 ("the token … is valid"): not revoked by its owner, not past its lifetime (but a
 * renewal, session extension, is how an expired token is replaced).
 */
function checkTokenStanding(
  token: TokenCredential | undefined,
  nowMs: number,
  options: VerifyOptions,
): void {
  if (token === undefined) return;
  if (token.revokedAt !== null)
    throw new OAuthError('token_revoked', 'The owner revoked this token.');
  const expiryChecked = options.kind !== 'renewal' && options.tokenMayBeExpired !== true;
  if (expiryChecked && token.expiresAt !== null && token.expiresAt <= nowMs) {
    throw new OAuthError('token_expired', 'This token has expired.');
  }
}

/** 11. §3.2 leaves what a token grants to the server: the scope the resource requires. */
function checkScope(token: TokenCredential | undefined, required: string | undefined): void {
  if (required === undefined || required === '') return;
  if (token !== undefined && scopeIncludes(token.scope, required)) return;
  throw new OAuthError('permission_denied', `This resource requires the scope: ${required}.`);
}

/**
 * 13. §3: who is calling. The owner comes through the store's cache (SQLite's read cache,
 * the per-instance cache on PostgreSQL + Redis).
 */
async function identifyCaller(
  store: Store,
  verified: VerifiedRequest,
  token: TokenCredential | undefined,
): Promise<VerifiedCaller> {
  if (token === undefined) return describeCaller(verified.client, undefined, undefined);
  const owner = await store.owners.findById(token.ownerId);
  // Removing an owner removes its tokens: only a race with that removal gets here.
  if (owner === undefined)
    throw new OAuthError('token_revoked', 'The owner of this token was removed.');
  return describeCaller(verified.client, token, owner);
}
