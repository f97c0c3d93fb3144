/**
 * Two verification steps (pipeline.ts, §3.4): the client may use this signature method and holds
 * the key it needs, then the signature matches the request, compared in constant time.
 */
import { OAuthError, publicKeyLabel, signatureBaseString } from '../../protocol/index.ts';
import type { CollectedParameters, SignatureKeys } from '../../protocol/index.ts';
import type { Client } from '../../store/types.ts';
import type { IncomingRequest, ProtocolParameters } from '../request.ts';

/** §3.4 (methods are the server's to allow, per client): 400 signature_method_rejected. */
export function checkClientMethod(client: Client, protocol: ProtocolParameters): void {
  const method = protocol.signatureMethod;
  if (client.signatureMethods.length > 0 && !client.signatureMethods.includes(method.name)) {
    throw new OAuthError(
      'signature_method_rejected',
      `This client is not registered for ${method.name}.`,
    );
  }
  if (method.keyKind === 'public-key' && client.publicKey === null) {
    throw new OAuthError(
      'signature_method_rejected',
      `This client has no ${publicKeyLabel(method)} registered.`,
    );
  }
  // §3.4.2, §3.4.4: a client registered for public-key methods alone has no shared secret, and
  // an HMAC or PLAINTEXT key of "&" plus the token secret would be no secret at all.
  if (method.keyKind === 'shared-secret' && client.secret === '') {
    throw new OAuthError(
      'signature_method_rejected',
      'This client has no shared secret; it signs with its public key.',
    );
  }
}

/** §3.4.1 base string, §3.4.2–3.4.4 verification: whether the signature was made with `keys`. */
export function signatureMatches(
  request: IncomingRequest,
  parameters: CollectedParameters,
  protocol: ProtocolParameters,
  keys: SignatureKeys,
): boolean {
  const method = protocol.signatureMethod;
  const baseString = method.usesBaseString
    ? signatureBaseString(
        { method: request.method, scheme: request.scheme, host: request.host, path: request.path },
        parameters.signed,
      )
    : '';
  return method.verify(baseString, protocol.signature, keys);
}

/** 401 signature_invalid, with advice when there is any to give. */
export const signatureInvalid = (advice = '') =>
  new OAuthError('signature_invalid', `The signature does not match the request.${advice}`);
