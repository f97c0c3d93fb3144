/**
 * Key material the provider keeps between requests, one set per provider instance: parsed
 * public keys (by their key type and PEM text, which is public) and the shared-secret keys
 * of each client and token secret pair prepared for HMAC (protocol/hmac.ts).
 *
 * A prepared key is kept with the credential objects the store's read cache hands out, in
 * WeakMaps: when the store drops a revoked, rotated or removed credential from its cache, its
 * prepared key goes with it, and a credential read afresh gets a key prepared afresh. Nothing
 * is ever keyed by a secret.
 */
import type { KeyObject } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { prepareHmacKey, sharedSecretKey } from '../../protocol/index.ts';
import type { HmacDigest, HmacKey, PreparedKeys, PublicKeyMethod } from '../../protocol/index.ts';
import type { Client, TokenCredential } from '../../store/types.ts';

/** Parsed public keys kept (about 1 KiB each); past it the least recently used goes. */
const PUBLIC_KEYS_KEPT = 10_000;

export interface CredentialKeys {
  /**
   * The client's public key parsed by `method` (its `checkPublicKey`); undefined when it has
   * none or the method does not take it.
   */
  publicKey(client: Client, method: PublicKeyMethod): KeyObject | undefined;
  /** A public key (PEM) parsed by `method`: a client's previous one (previous-credential.ts). */
  publicKeyOf(pem: string, method: PublicKeyMethod): KeyObject | undefined;
  /** The prepared shared-secret key of a client, with its token when the request has one. */
  prepared(client: Client, token: TokenCredential | undefined): PreparedKeys;
}

/** One secret pair's key, prepared per digest on first use. */
class PreparedPair implements PreparedKeys {
  readonly client: Client;
  readonly #key: string;
  readonly #digests: Partial<Record<HmacDigest, HmacKey>> = {};

  constructor(client: Client, clientSecret: string, tokenSecret: string) {
    this.client = client;
    this.#key = sharedSecretKey({ clientSecret, tokenSecret });
  }

  hmacKey(digest: HmacDigest): HmacKey {
    return (this.#digests[digest] ??= prepareHmacKey(digest, this.#key));
  }
}

export function createCredentialKeys(): CredentialKeys {
  const publicKeys = new LRUCache<string, KeyObject | false>({ max: PUBLIC_KEYS_KEPT });
  const byToken = new WeakMap<TokenCredential, PreparedPair>();
  const byClient = new WeakMap<Client, PreparedPair>();

  return {
    publicKey(client, method) {
      return client.publicKey === null ? undefined : this.publicKeyOf(client.publicKey, method);
    },

    publicKeyOf(pem, method) {
      const kept = `${method.publicKeyType}\n${pem}`;
      let key = publicKeys.get(kept);
      if (key === undefined) {
        try {
          key = method.checkPublicKey(pem);
        } catch {
          key = false; // a key that does not parse verifies nothing
        }
        publicKeys.set(kept, key);
      }
      return key === false ? undefined : key;
    },

    prepared(client, token) {
      if (token !== undefined) {
        let pair = byToken.get(token);
        // The same token read with its client since changed (a rotated secret) is prepared again.
        if (pair === undefined || pair.client !== client) {
          pair = new PreparedPair(client, client.secret, token.secret);
          byToken.set(token, pair);
        }
        return pair;
      }
      let pair = byClient.get(client);
      if (pair === undefined)
        byClient.set(client, (pair = new PreparedPair(client, client.secret, '')));
      return pair;
    },
  };
}
