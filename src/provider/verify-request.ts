/**
 * The hot path: verify one authenticated request (§3.2), in the order ARCHITECTURE.md sets:
 *   1. collect and check the protocol parameters        (400s, no I/O)
 *   2. check the timestamp window                        (401 timestamp_refused)
 *   3. load the client and token, dummies for unknowns   (one store read each)
 *   4. verify the signature in constant time             (401 signature_invalid)
 *      then a disabled client is refused                 (401 consumer_key_rejected)
 *   5. remember the nonce, insert-if-absent              (401 nonce_used)
 *   6. the token's revocation and lifetime               (401 token_revoked / token_expired)
 * Scope is the caller's to check (it knows what the resource requires).
 */
import { collectParameters, OAuthError, signatureBaseString } from '../protocol/index.ts';
import type { Store } from '../store/types.ts';
import type { Policy } from './policy.ts';
import type { IncomingRequest, RequestKind, VerifiedRequest } from './request.ts';
import { checkProtocolParameters } from './steps/check-protocol-parameters.ts';
import { checkTimestamp } from './steps/check-timestamp.ts';
import { loadCredentials } from './steps/load-credentials.ts';
import type { CredentialKeys } from './credential-keys.ts';

export interface VerifyOptions {
  readonly kind: RequestKind;
  /** For resource requests: false accepts a request signed by the client alone. */
  readonly tokenRequired: boolean;
}

export interface VerifyDependencies {
  readonly store: Store;
  readonly policy: Policy;
  /** The provider's prepared keys (credential-keys.ts). */
  readonly keys: CredentialKeys;
  /** Milliseconds since the epoch. */
  readonly now: () => number;
}

export async function verifyRequest(
  deps: VerifyDependencies,
  request: IncomingRequest,
  options: VerifyOptions,
): Promise<VerifiedRequest> {
  const { store, policy } = deps;
  const parameters = collectParameters(request);
  const protocol = checkProtocolParameters(parameters, options, policy);
  const method = protocol.signatureMethod;
  if (!method.usesBaseString && !request.secure) {
    // §3.4.4: PLAINTEXT sends the secrets themselves; only over TLS (or loopback).
    throw new OAuthError(
      'signature_method_rejected',
      `${method.name} is accepted only over HTTPS.`,
    );
  }
  if (options.kind === 'temporary' && protocol.token !== undefined) {
    throw new OAuthError(
      'parameter_rejected',
      'The temporary credential request takes no oauth_token.',
      {
        advice: { oauth_parameters_rejected: 'oauth_token' },
      },
    );
  }

  const nowMs = deps.now();
  const nowSeconds = Math.floor(nowMs / 1000);
  checkTimestamp(protocol.timestamp, nowSeconds, policy.timestampWindowSeconds);

  const loaded = await loadCredentials(store, deps.keys, protocol, options.kind);
  const client = loaded.client;
  if (
    client !== undefined &&
    client.signatureMethods.length > 0 &&
    !client.signatureMethods.includes(method.name)
  ) {
    throw new OAuthError(
      'signature_method_rejected',
      `This client is not registered for ${method.name}.`,
    );
  }
  if (client !== undefined && method.keyKind === 'rsa' && client.rsaPublicKey === null) {
    throw new OAuthError(
      'signature_method_rejected',
      `This client has no RSA public key registered.`,
    );
  }
  // A client registered for RSA alone has no shared secret: an HMAC or PLAINTEXT key of
  // "&" plus the token secret would be no secret at all.
  if (client !== undefined && method.keyKind === 'shared-secret' && client.secret === '') {
    throw new OAuthError(
      'signature_method_rejected',
      `This client has no shared secret; it signs with its RSA key.`,
    );
  }

  const baseString = method.usesBaseString
    ? signatureBaseString(
        { method: request.method, scheme: request.scheme, host: request.host, path: request.path },
        parameters.signed,
      )
    : '';
  const valid = method.verify(baseString, protocol.signature, loaded);
  if (client === undefined) throw new OAuthError('consumer_key_unknown', 'Unknown client key.');
  if (
    protocol.token !== undefined &&
    loaded.tokenCredential === undefined &&
    loaded.temporaryCredential === undefined
  ) {
    throw new OAuthError('token_rejected', 'Unknown token, or a token issued to another client.');
  }
  if (!valid)
    throw new OAuthError('signature_invalid', 'The signature does not match the request.');
  // After the signature, so only the client itself learns that it is disabled.
  if (client.disabled) {
    throw new OAuthError(
      'consumer_key_rejected',
      'This client is disabled on this server; its requests are refused until it is enabled.',
    );
  }

  if (protocol.nonce !== undefined && protocol.timestamp !== undefined) {
    const first = await store.nonces.remember(
      {
        clientKey: client.key,
        token: protocol.token ?? '',
        timestamp: protocol.timestamp,
        nonce: protocol.nonce,
      },
      protocol.timestamp + policy.timestampWindowSeconds,
    );
    if (!first)
      throw new OAuthError('nonce_used', 'This nonce was already used; send a fresh one.');
  }

  const token = loaded.tokenCredential;
  if (token !== undefined) {
    if (token.revokedAt !== null)
      throw new OAuthError('token_revoked', 'The owner revoked this token.');
    if (token.expiresAt !== null && token.expiresAt <= nowMs) {
      throw new OAuthError('token_expired', 'This token has expired.');
    }
  }
  return {
    client,
    protocol,
    parameters,
    tokenCredential: token,
    temporaryCredential: loaded.temporaryCredential,
  };
}
