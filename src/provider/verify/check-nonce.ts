/**
 * A verification step, §3.3: a nonce is used once per (client, token, timestamp), recorded
 * after the signature so a forged request never burns a client's nonce. Kept for the window
 * after its timestamp, found by its key alone (store/types.ts NonceStore). PLAINTEXT may send
 * neither (§3.4.4).
 */
import { OAuthError } from '../../protocol/index.ts';
import type { Store } from '../../store/types.ts';
import type { Policy } from '../policy.ts';
import type { ProtocolParameters } from '../request.ts';

export async function rememberNonce(
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
