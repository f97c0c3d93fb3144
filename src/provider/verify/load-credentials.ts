/**
 * A verification step (pipeline.ts): look up the client and the token (§3.2: "the client
 * credentials and token … are valid"). An unknown client key, or a token that does not exist or
 * belongs to another client, is refused here, before any signature is computed: identifiers are
 * not secrets (every request carries them in clear), so naming them costs nothing, and no work is
 * spent on a signature that no key could have made (docs/decisions.md).
 */
import { OAuthError } from '../../protocol/index.ts';
import type { SignatureKeys } from '../../protocol/index.ts';
import type { Client, TemporaryCredential, TokenCredential } from '../../store/types.ts';
import type { CredentialKeys } from './credential-keys.ts';
import type { ProtocolParameters } from '../request.ts';
import type { Verification } from './verification.ts';

/** The credentials of one request, with the key material its signature method needs. */
export interface LoadedCredentials extends SignatureKeys {
  readonly client: Client;
  /** The token credential of a resource request, when it carries a token. */
  readonly tokenCredential: TokenCredential | undefined;
  /** The temporary credential of a token request (§2.3). */
  readonly temporaryCredential: TemporaryCredential | undefined;
}

/** Sets `verification.loaded`: the client and token of its protocol parameters. */
export async function loadCredentials(verification: Verification): Promise<void> {
  const { store, keys } = verification.deps;
  const protocol = verification.protocol!;
  const client = await store.clients.find(protocol.consumerKey);
  if (client === undefined) throw new OAuthError('consumer_key_unknown', 'Unknown client key.');
  if (protocol.token === undefined) {
    verification.loaded = known(keys, protocol, client, undefined, undefined);
  } else if (verification.options.kind === 'exchange') {
    const temporary = await store.temporaryCredentials.find(protocol.token);
    verification.loaded = known(keys, protocol, client, undefined, temporary);
  } else {
    const token = await store.tokenCredentials.find(protocol.token);
    verification.loaded = known(keys, protocol, client, token, undefined);
  }
}

/**
 * The credentials, once the token (if any) is known and issued to this client, with their
 * key material (§3.4.2–3.4.4) in the same object: one allocation per request.
 */
function known(
  keys: CredentialKeys,
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
  const method = protocol.signatureMethod;
  const keyPair = method.keyKind === 'public-key';
  return {
    client,
    tokenCredential,
    temporaryCredential,
    clientSecret: keyPair ? undefined : client.secret,
    tokenSecret,
    publicKey: keyPair ? keys.publicKey(client, method) : undefined,
    // Kept with the records the store cache hands out; a temporary credential is used once.
    prepared:
      keyPair || temporaryCredential !== undefined
        ? undefined
        : keys.prepared(client, tokenCredential),
  };
}
