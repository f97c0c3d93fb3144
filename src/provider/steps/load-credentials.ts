/**
 * Step 4 of verification: look up the client and the token (§3.2: "the client credentials
 * and token … are valid"). An unknown client key, or a token that does not exist or belongs
 * to another client, is refused here, before any signature is computed: identifiers are not
 * secrets (every request carries them in clear), so naming them costs nothing, and no work
 * is spent on a signature that no key could have made (docs/decisions.md).
 */
import type { KeyObject } from 'node:crypto';
import { OAuthError, parseRsaPublicKey } from '../../protocol/index.ts';
import type { SignatureKeys } from '../../protocol/index.ts';
import type { Client, Store, TemporaryCredential, TokenCredential } from '../../store/types.ts';
import type { ProtocolParameters, RequestKind } from '../request.ts';

/** The credentials of one request, with the key material its signature method needs. */
export interface LoadedCredentials extends SignatureKeys {
  readonly client: Client;
  /** The token credential of a resource request, when it carries a token. */
  readonly tokenCredential: TokenCredential | undefined;
  /** The temporary credential of a token request (§2.3). */
  readonly temporaryCredential: TemporaryCredential | undefined;
}

/** Parsed RSA public keys by PEM text: parsed once per client, never per request. */
const publicKeys = new Map<string, KeyObject | null>();

export function publicKeyFor(client: Client): KeyObject | undefined {
  const pem = client.rsaPublicKey;
  if (pem === null) return undefined;
  let key = publicKeys.get(pem);
  if (key === undefined) {
    try {
      key = parseRsaPublicKey(pem);
    } catch {
      key = null; // a key that does not parse verifies nothing
    }
    if (publicKeys.size >= 10_000) publicKeys.clear();
    publicKeys.set(pem, key);
  }
  return key ?? undefined;
}

/**
 * The client and token from the store's read cache, without a promise, when both are
 * cached (the usual resource request); undefined sends the caller to loadCredentials. A
 * cached answer is the one find() would give (store/types.ts, Peek).
 */
export function loadCachedCredentials(
  store: Store,
  protocol: ProtocolParameters,
  kind: RequestKind,
): LoadedCredentials | undefined {
  // A token request is answered from the store itself: it changes what it reads.
  if (kind === 'exchange' || kind === 'renewal') return undefined;
  const client = store.clients.peek?.(protocol.consumerKey);
  if (client === undefined) return undefined;
  if (protocol.token === undefined) return known(protocol, client, undefined, undefined);
  const token = store.tokenCredentials.peek?.(protocol.token);
  if (token === undefined) return undefined;
  return known(protocol, client, token, undefined);
}

export async function loadCredentials(
  store: Store,
  protocol: ProtocolParameters,
  kind: RequestKind,
): Promise<LoadedCredentials> {
  const client = await store.clients.find(protocol.consumerKey);
  if (client === undefined) throw new OAuthError('consumer_key_unknown', 'Unknown client key.');
  if (protocol.token === undefined) return known(protocol, client, undefined, undefined);
  if (kind === 'exchange') {
    return known(
      protocol,
      client,
      undefined,
      await store.temporaryCredentials.find(protocol.token),
    );
  }
  return known(protocol, client, await store.tokenCredentials.find(protocol.token), undefined);
}

/**
 * The credentials, once the token (if any) is known and issued to this client, with their
 * key material (§3.4.2–3.4.4) in the same object: one allocation per request.
 */
function known(
  protocol: ProtocolParameters,
  client: Client,
  tokenCredential: TokenCredential | undefined,
  temporaryCredential: TemporaryCredential | undefined,
): LoadedCredentials {
  let tokenSecret = '';
  if (protocol.token !== undefined) {
    const found = tokenCredential ?? temporaryCredential;
    if (found === undefined || found.clientKey !== client.key) {
      throw new OAuthError('token_rejected', 'Unknown token, or a token issued to another client.');
    }
    tokenSecret = found.secret;
  }
  const rsa = protocol.signatureMethod.keyKind === 'rsa';
  return {
    client,
    tokenCredential,
    temporaryCredential,
    clientSecret: rsa ? undefined : client.secret,
    tokenSecret,
    publicKey: rsa ? publicKeyFor(client) : undefined,
  };
}
