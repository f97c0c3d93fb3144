/**
 * Step 3: look up the client and the token. An unknown key still yields key material (a
 * dummy secret or RSA key), so the signature check costs the same and timing does not
 * reveal which keys exist (ARCHITECTURE "hot path" step 3).
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { parseRsaPublicKey } from '../../protocol/index.ts';
import type { Client, Store, TemporaryCredential, TokenCredential } from '../../store/types.ts';
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
}

const DUMMY_SECRET = randomBytes(32).toString('base64url');
let dummyPublicKey: KeyObject | undefined;

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

function rsaDummy(): KeyObject {
  dummyPublicKey ??= generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey;
  return dummyPublicKey;
}

export async function loadCredentials(
  store: Store,
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
  return withKeys(protocol, client, tokenCredential, temporaryCredential);
}

/**
 * The same from the store's read cache, without a promise, when the client and the token of
 * a resource request are both cached (the usual request); undefined sends the caller to
 * loadCredentials. A cached answer is the one find() would give (store/types.ts, Peek).
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
  let tokenCredential: TokenCredential | undefined;
  if (protocol.token !== undefined) {
    tokenCredential = store.tokenCredentials.peek?.(protocol.token);
    if (tokenCredential === undefined) return undefined;
    if (tokenCredential.clientKey !== client.key) tokenCredential = undefined;
  }
  return withKeys(protocol, client, tokenCredential, undefined);
}

function withKeys(
  protocol: ProtocolParameters,
  client: Client | undefined,
  tokenCredential: TokenCredential | undefined,
  temporaryCredential: TemporaryCredential | undefined,
): LoadedCredentials {
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
    publicKey: rsa ? ((client && publicKeyFor(client)) ?? rsaDummy()) : undefined,
  };
}
