/**
 * Key material the provider keeps between requests, one set per provider instance: parsed
 * RSA public keys (by their PEM text, which is public) and the shared-secret keys of each
 * client and token secret pair prepared for HMAC (protocol/hmac.ts).
 *
 * A prepared key is kept with the credential objects the store's read cache hands out, in
 * WeakMaps: when the store drops a revoked, rotated or removed credential from its cache, its
 * prepared key goes with it, and a credential read afresh gets a key prepared afresh. Nothing
 * is ever keyed by a secret.
 *
 * An unknown client or token is given a prepared dummy key of the same shape, so the
 * signature check costs the same whether the key exists or not (verify-request.ts, step 3).
 */
import { randomBytes } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { parseRsaPublicKey, prepareHmacKey, sharedSecretKey } from '../protocol/index.ts';
import type { HmacDigest, HmacKey, PreparedKeys } from '../protocol/index.ts';
import type { Client, TokenCredential } from '../store/types.ts';

/** Parsed public keys kept (about 1 KiB each); past it the least recently used goes. */
const PUBLIC_KEYS_KEPT = 10_000;

/** A random secret standing in for an unknown client's or token's. */
export const DUMMY_SECRET = randomBytes(32).toString('base64url');

export interface CredentialKeys {
  /** The client's parsed RSA public key; undefined when it has none or it does not parse. */
  publicKey(client: Client): KeyObject | undefined;
  /**
   * The prepared shared-secret key of a resource or temporary-credential request: `client`
   * and `token` as found (undefined when unknown), `tokenSent` when the request named one.
   */
  prepared(
    client: Client | undefined,
    token: TokenCredential | undefined,
    tokenSent: boolean,
  ): PreparedKeys;
}

/** One secret pair's key, prepared per digest on first use. */
class PreparedPair implements PreparedKeys {
  readonly client: Client | undefined;
  readonly #key: string;
  readonly #digests: Partial<Record<HmacDigest, HmacKey>> = {};

  constructor(client: Client | undefined, clientSecret: string, tokenSecret: string) {
    this.client = client;
    this.#key = sharedSecretKey({ clientSecret, tokenSecret });
  }

  hmacKey(digest: HmacDigest): HmacKey {
    return (this.#digests[digest] ??= prepareHmacKey(digest, this.#key));
  }
}

/** A client's own pairs: signing alone, or with a token that is not its own or not known. */
interface ClientPairs {
  alone?: PreparedPair;
  withUnknownToken?: PreparedPair;
}

export function createCredentialKeys(): CredentialKeys {
  const publicKeys = new LRUCache<string, KeyObject | false>({ max: PUBLIC_KEYS_KEPT });
  const byToken = new WeakMap<TokenCredential, PreparedPair>();
  const byClient = new WeakMap<Client, ClientPairs>();
  const unknownAlone = new PreparedPair(undefined, DUMMY_SECRET, '');
  const unknownWithToken = new PreparedPair(undefined, DUMMY_SECRET, DUMMY_SECRET);

  return {
    publicKey(client) {
      const pem = client.rsaPublicKey;
      if (pem === null) return undefined;
      let key = publicKeys.get(pem);
      if (key === undefined) {
        try {
          key = parseRsaPublicKey(pem);
        } catch {
          key = false; // a key that does not parse verifies nothing
        }
        publicKeys.set(pem, key);
      }
      return key === false ? undefined : key;
    },

    prepared(client, token, tokenSent) {
      if (client === undefined) return tokenSent ? unknownWithToken : unknownAlone;
      if (token !== undefined) {
        let pair = byToken.get(token);
        // The same token read with its client since changed (a rotated secret) is prepared again.
        if (pair === undefined || pair.client !== client) {
          pair = new PreparedPair(client, client.secret, token.secret);
          byToken.set(token, pair);
        }
        return pair;
      }
      let pairs = byClient.get(client);
      if (pairs === undefined) byClient.set(client, (pairs = {}));
      return tokenSent
        ? (pairs.withUnknownToken ??= new PreparedPair(client, client.secret, DUMMY_SECRET))
        : (pairs.alone ??= new PreparedPair(client, client.secret, ''));
    },
  };
}
