/**
 * Step 3: look up the client and the token. An unknown key still yields key material (a
 * dummy secret or RSA key), so the signature check costs the same and timing does not
 * reveal which keys exist (ARCHITECTURE "hot path" step 3).
 */
import { generateKeyPairSync } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import type { PreparedKeys } from '../../protocol/index.ts';
import type { Client, Store, TemporaryCredential, TokenCredential } from '../../store/types.ts';
import { DUMMY_SECRET } from '../credential-keys.ts';
import type { CredentialKeys } from '../credential-keys.ts';
import type { ProtocolParameters, RequestKind } from '../request.ts';

export interface LoadedCredentials {
  readonly client: Client | undefined;
  /** The token credential of a resource request, if it exists and belongs to the client. */
  readonly tokenCredential: TokenCredential | undefined;
  /** The temporary credential of a token request, if it exists and belongs to the client. */
  readonly temporaryCredential: TemporaryCredential | undefined;
  readonly clientSecret: string;
  readonly tokenSecret: string;
  readonly publicKey: KeyObject | undefined;
  /** The two secrets' key prepared once (not for a token request's short-lived credential). */
  readonly prepared: PreparedKeys | undefined;
}

let dummyPublicKey: KeyObject | undefined;

function rsaDummy(): KeyObject {
  dummyPublicKey ??= generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey;
  return dummyPublicKey;
}

export async function loadCredentials(
  store: Store,
  keys: CredentialKeys,
  protocol: ProtocolParameters,
  kind: RequestKind,
): Promise<LoadedCredentials> {
  const client = await store.clients.find(protocol.consumerKey);
  let tokenCredential: TokenCredential | undefined;
  let temporaryCredential: TemporaryCredential | undefined;
  if (protocol.token !== undefined) {
    if (kind === 'exchange') {
      const found = await store.temporaryCredentials.find(protocol.token);
      if (found !== undefined && found.clientKey === client?.key) temporaryCredential = found;
    } else {
      const found = await store.tokenCredentials.find(protocol.token);
      if (found !== undefined && found.clientKey === client?.key) tokenCredential = found;
    }
  }
  const rsa = protocol.signatureMethod.keyKind === 'rsa';
  return {
    client,
    tokenCredential,
    temporaryCredential,
    clientSecret: client?.secret ?? DUMMY_SECRET,
    tokenSecret:
      protocol.token === undefined
        ? ''
        : (tokenCredential?.secret ?? temporaryCredential?.secret ?? DUMMY_SECRET),
    publicKey: rsa ? ((client && keys.publicKey(client)) ?? rsaDummy()) : undefined,
    // A temporary credential is used once: its key is prepared per request, known or not.
    prepared:
      kind === 'exchange' || rsa
        ? undefined
        : keys.prepared(client, tokenCredential, protocol.token !== undefined),
  };
}
