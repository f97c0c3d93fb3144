/**
 * A verification step (pipeline.ts), the channel: TLS where secrets travel. The flow endpoints
 * answer with credentials (§2.1, §2.3: the server "MUST require the use of a transport-layer
 * mechanism such as TLS"), and PLAINTEXT sends the secrets themselves (§3.4.4). Whether the
 * channel is secure is the adapter's finding (`IncomingRequest.secure`, http/incoming-request.ts
 * `isSecureChannel`); which requests need it is decided here, and only here.
 */
import { OAuthError } from '../../protocol/index.ts';
import type { SignatureMethod } from '../../protocol/index.ts';
import type { RequestKind } from '../request.ts';

export function checkChannel(secure: boolean, kind: RequestKind, method: SignatureMethod): void {
  if (secure) return;
  if (kind !== 'resource') {
    throw new OAuthError(
      'https_required',
      'This endpoint needs HTTPS; the credentials it returns are secret.',
    );
  }
  if (!method.usesBaseString) {
    throw new OAuthError(
      'signature_method_rejected',
      `${method.name} is accepted only over HTTPS.`,
    );
  }
}
