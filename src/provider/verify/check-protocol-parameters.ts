/**
 * The first verification step (pipeline.ts): the protocol parameters are present, single,
 * well-formed and known (§3.1, §3.2, §2.1–2.3 for the flow's own parameters, the Request Body Hash
 * and session extensions). Cheap checks first, before any lookup.
 */
import { OAuthError, printable } from '../../protocol/index.ts';
import type { CollectedParameters } from '../../protocol/index.ts';
import type { Policy } from '../policy.ts';
import type { ProtocolParameters, RequestKind } from '../request.ts';

/**
 * One rule for every protocol parameter name (docs/decisions.md, "What differences are
 * tolerated"): a name Latchkey knows is accepted on every request, covered by the signature
 * like any parameter, and read only where it means something; anywhere else it is ignored.
 * Real clients re-send a step's parameter on later requests (`oauth_verifier` on every
 * resource request, `oauth_callback` on the token request) and echo what the server answered
 * (`oauth_callback_confirmed`, the session extension's fields), and a parameter that decides
 * nothing where it is ignored weakens no check. Two kinds of name are refused: an unknown one
 * (the client may count on an extension Latchkey does not implement) and a secret
 * (`oauth_token_secret` never travels: the signature proves the client holds it, §3.4).
 */
const KNOWN: ReadonlyMap<string, RequestKind | 'every' | 'none'> = new Map([
  // §3.1, read on every request.
  ['oauth_consumer_key', 'every'],
  ['oauth_token', 'every'],
  ['oauth_signature_method', 'every'],
  ['oauth_signature', 'every'],
  ['oauth_timestamp', 'every'],
  ['oauth_nonce', 'every'],
  ['oauth_version', 'every'],
  ['oauth_body_hash', 'every'], // the Request Body Hash extension, checked by check-body-hash.ts
  // One step's own parameters (§2.1, §2.3, the session extension's renewal).
  ['oauth_callback', 'temporary'],
  ['oauth_verifier', 'exchange'],
  ['oauth_session_handle', 'renewal'], // its presence makes a token request a renewal
  // Answer fields the server issues (§2.1; the session extension's token answer), echoed back.
  ['oauth_callback_confirmed', 'none'],
  ['oauth_expires_in', 'none'],
  ['oauth_authorization_expires_in', 'none'],
]);
const TIMESTAMP = /^[0-9]{1,10}$/;

export interface ParameterRules {
  readonly kind: RequestKind;
  /** Whether oauth_token must be present (false: a request signed by the client alone). */
  readonly tokenRequired: boolean;
  /** Whether a body that is not form-encoded must carry oauth_body_hash. */
  readonly requireBodyHash?: boolean | undefined;
}

/** What the body hash rules need to know of the request's body. */
export interface BodyFacts {
  /** The body is form-encoded (its parameters are signed; it takes no body hash). */
  readonly form: boolean;
  /** A body that is not form-encoded, with at least one byte. */
  readonly otherBody: boolean;
}

export function checkProtocolParameters(
  collected: CollectedParameters,
  rules: ParameterRules,
  policy: Policy,
  body: BodyFacts = { form: false, otherBody: false },
): ProtocolParameters {
  // Bounded so one request cannot make the server sort and echo an unbounded list.
  if (collected.signed.length > policy.maxParameters) {
    throw new OAuthError(
      'parameter_rejected',
      `A request may carry at most ${policy.maxParameters} parameters.`,
    );
  }
  const p = collected.protocol;
  for (const name of p.keys()) {
    if (!KNOWN.has(name)) refuseUnknown(name);
  }
  // Each value read once: a missing parameter is undefined (values are always strings).
  const consumerKey = p.get('oauth_consumer_key');
  const methodName = p.get('oauth_signature_method');
  const signature = p.get('oauth_signature');
  const rawTimestamp = p.get('oauth_timestamp');
  const nonce = p.get('oauth_nonce');
  const bodyHash = p.get('oauth_body_hash');
  // Read only in their own step (KNOWN); elsewhere they were signed and are otherwise ignored.
  const inStep = (name: string) => (KNOWN.get(name) === rules.kind ? p.get(name) : undefined);
  const callback = inStep('oauth_callback');
  const verifier = inStep('oauth_verifier');
  const sessionHandle = inStep('oauth_session_handle');
  const signatureMethod =
    methodName === undefined ? undefined : policy.signatureMethods.get(methodName);
  const needsNonce = signatureMethod?.usesBaseString ?? true;

  const absent: string[] = [];
  if (consumerKey === undefined) absent.push('oauth_consumer_key');
  // Some clients send an empty oauth_token when they have none; it signs as given, means none.
  const token = p.get('oauth_token') || undefined;
  if (rules.tokenRequired && token === undefined) absent.push('oauth_token');
  if (methodName === undefined) absent.push('oauth_signature_method');
  if (signature === undefined) absent.push('oauth_signature');
  if (needsNonce && rawTimestamp === undefined) absent.push('oauth_timestamp');
  if (needsNonce && nonce === undefined) absent.push('oauth_nonce');
  if (rules.kind === 'temporary' && callback === undefined) absent.push('oauth_callback');
  if (rules.kind === 'exchange' && verifier === undefined) absent.push('oauth_verifier');
  if (rules.kind === 'renewal' && sessionHandle === undefined) absent.push('oauth_session_handle');
  if (rules.requireBodyHash === true && body.otherBody && bodyHash === undefined)
    absent.push('oauth_body_hash');
  if (absent.length > 0) {
    // No OAuth at all on a protected resource is an authentication challenge (401 with
    // WWW-Authenticate, §3.5.1), not a malformed request.
    const unauthenticated = collected.transmission === undefined && rules.kind === 'resource';
    throw new OAuthError('parameter_absent', `Missing: ${absent.join(', ')}.`, {
      advice: { oauth_parameters_absent: absent.join('&') },
      ...(unauthenticated ? { status: 401 } : {}),
    });
  }
  // §2.1: the temporary credential request is signed by the client alone.
  if (rules.kind === 'temporary' && token !== undefined) {
    throw new OAuthError(
      'parameter_rejected',
      'The temporary credential request takes no oauth_token.',
      {
        advice: { oauth_parameters_rejected: 'oauth_token' },
      },
    );
  }
  if (signatureMethod === undefined) {
    throw new OAuthError(
      'signature_method_rejected',
      `Unsupported signature method "${printable(methodName ?? '')}". Supported: ${policy.signatureMethods.names().join(', ')}.`,
    );
  }
  const version = p.get('oauth_version');
  if (version !== undefined && version !== '1.0') {
    throw new OAuthError('version_rejected', 'oauth_version must be 1.0 when present.', {
      advice: { oauth_acceptable_versions: '1.0-1.0' },
    });
  }
  if (bodyHash !== undefined) checkBodyHashParameter(bodyHash, body);
  checkNonEmpty('oauth_consumer_key', consumerKey, policy.maxValueBytes);
  checkNonEmpty('oauth_nonce', nonce, policy.maxValueBytes);
  checkNonEmpty('oauth_verifier', verifier, policy.maxValueBytes);
  checkNonEmpty('oauth_session_handle', sessionHandle, policy.maxValueBytes);
  checkTokenLength(token, policy.maxValueBytes);
  const timestamp = rawTimestamp === undefined ? undefined : readTimestamp(rawTimestamp);
  return {
    consumerKey: consumerKey!,
    token,
    signatureMethod,
    signature: signature!,
    timestamp,
    nonce,
    callback,
    verifier,
    bodyHash,
    ...(sessionHandle === undefined ? {} : { sessionHandle }),
  };
}

/** §3.3: a positive integer, seconds since the epoch. */
function readTimestamp(raw: string): number {
  if (TIMESTAMP.test(raw) && Number(raw) > 0) return Number(raw); // the usual case, one test
  if (!/^[0-9]+$/.test(raw) || /^0+$/.test(raw)) {
    throw new OAuthError('parameter_rejected', 'oauth_timestamp must be a positive integer.', {
      advice: { oauth_parameters_rejected: 'oauth_timestamp' },
    });
  }
  // More than 10 digits: a 13-digit millisecond timestamp is refused by the window check
  // with the range, so the client developer sees why (check-timestamp, a far-future time).
  return Number.MAX_SAFE_INTEGER;
}

/** base64 of a SHA-1, SHA-256 or SHA-512 digest: 28, 44 or 88 characters. */
const BODY_HASH = /^[A-Za-z0-9+/]{27}=$|^[A-Za-z0-9+/]{43}=$|^[A-Za-z0-9+/]{86}==$/;

/**
 * Request Body Hash extension: never on a form-encoded body (its parameters are signed
 * already, and the extension forbids it), and well-formed. With any signature method, its
 * value is compared with the body after the signature check (check-body-hash.ts); with
 * PLAINTEXT, which signs no parameters, the hash protects nothing more than the channel does,
 * but a client that sends one still gets it checked.
 */
function checkBodyHashParameter(value: string, body: BodyFacts): void {
  const advice = { advice: { oauth_parameters_rejected: 'oauth_body_hash' } };
  if (body.form) {
    throw new OAuthError(
      'parameter_rejected',
      'oauth_body_hash is not sent with a form-encoded body; its parameters are signed already.',
      advice,
    );
  }
  if (!BODY_HASH.test(value)) {
    throw new OAuthError(
      'parameter_rejected',
      'oauth_body_hash must be the base64 digest of the body.',
      advice,
    );
  }
}

/** An oauth_* name outside KNOWN: a secret that must not travel, or one Latchkey does not know. */
function refuseUnknown(name: string): never {
  const advice = { advice: { oauth_parameters_rejected: name } };
  if (name === 'oauth_token_secret') {
    throw new OAuthError(
      'parameter_rejected',
      'oauth_token_secret is never sent: the signature proves the client holds it (RFC 5849 §3.4).',
      advice,
    );
  }
  throw new OAuthError('parameter_rejected', `"${printable(name)}" is not accepted here.`, advice);
}

/** Present values of these parameters are 1 to maxValueBytes bytes (§3.1 leaves them open). */
function checkNonEmpty(name: string, value: string | undefined, maxValueBytes: number): void {
  if (value !== undefined && (value === '' || tooLong(value, maxValueBytes))) {
    throw new OAuthError(
      'parameter_rejected',
      `${name} must be 1 to ${maxValueBytes} bytes long.`,
      {
        advice: { oauth_parameters_rejected: name },
      },
    );
  }
}

/** oauth_token, when sent, is at most maxValueBytes bytes (an empty one means none). */
function checkTokenLength(token: string | undefined, maxValueBytes: number): void {
  if (token === undefined || !tooLong(token, maxValueBytes)) return;
  throw new OAuthError(
    'parameter_rejected',
    `oauth_token must be at most ${maxValueBytes} bytes.`,
    {
      advice: { oauth_parameters_rejected: 'oauth_token' },
    },
  );
}

/** More than `max` UTF-8 bytes; a UTF-16 code unit is at most 3 bytes, so short text skips the count. */
function tooLong(value: string, max: number): boolean {
  return value.length * 3 > max && Buffer.byteLength(value) > max;
}
