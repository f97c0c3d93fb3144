/**
 * Secrets at rest: the client, token, temporary-credential and webhook secrets are sealed with
 * AES-256-GCM before they reach a table, and opened when a row is read (HMAC and PLAINTEXT
 * need the secret itself, RFC 5849 §3.4.2, so a one-way hash will not do). Each sealed value
 * is stored with the id of the key that sealed it, so keys can be rotated while old rows are
 * still read; its row (table and key) is the additional data, so a sealed value copied into
 * another row does not open.
 *
 * Stored form: base64url(12-byte nonce ‖ ciphertext ‖ 16-byte tag), key id in its own column;
 * a null key id means the value is in clear (a store without a key, or a row written before
 * one was configured).
 */
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';
import { StoreUnavailableError } from './types.ts';

/** A 256-bit key and its id (a digest of the key, so the same key has the same id anywhere). */
export interface SealingKey {
  readonly id: string;
  readonly key: Buffer;
}

/** Where the keys come from (src/store/key-file.ts): one current key seals, every key opens. */
export interface Keyring {
  /** The key new values are sealed with; undefined: values are stored in clear. */
  current(): SealingKey | undefined;
  /** The key with this id, or undefined when it is not (or no longer) configured. */
  find(id: string): SealingKey | undefined;
}

/** A value as stored: `keyId` null when in clear. */
export interface StoredSecret {
  readonly value: string;
  readonly keyId: string | null;
}

export interface Sealer {
  /** Seals `plain` for the row named by `context` with the current key (or leaves it in clear). */
  seal(plain: string, context: string): StoredSecret;
  /** Opens a stored value; throws when its key is not configured or the value was altered. */
  open(stored: StoredSecret, context: string): string;
  /** The id of the key values are sealed with now, or null (in clear). */
  currentKeyId(): string | null;
  /** A verifier as stored (see {@link verifierDigestWith}): keyed with the current key. */
  verifierDigest(verifier: string): string;
  /** Whether `verifier` is the one `stored` was made from, compared in constant time. */
  verifierMatches(verifier: string, stored: string): boolean;
}

/** A key's id: the first 12 hex digits of a SHA-256 over a label and the key. */
export function keyIdOf(key: Buffer): string {
  return createHash('sha256')
    .update('latchkey sealing key ')
    .update(key)
    .digest('hex')
    .slice(0, 12);
}

export function sealingKey(key: Buffer): SealingKey {
  if (key.length !== 32) throw new TypeError('A sealing key is 32 bytes (256 bits).');
  return { id: keyIdOf(key), key };
}

/**
 * A key cannot open a value: not configured, or the value or its row was tampered with. It is
 * a store outage (docs/decisions.md): the row cannot be served now, so the request is refused
 * with 503 and Retry-After, fail closed, and restoring the key (a key file is re-read when a
 * value names a key it lacks) makes it answer again without a restart. The message names the
 * key id, never a value.
 */
export class SealedValueError extends StoreUnavailableError {
  override readonly name = 'SealedValueError';
}

/**
 * The key ids that `counts` (rows per key id, SealedSecretStore.countByKey) holds rows under
 * and `keyring` cannot open: the database was sealed with a key this process was not given.
 * Rows in clear ('') need no key.
 */
export function missingKeyIds(
  counts: ReadonlyMap<string, number>,
  keyring: Keyring | undefined,
): string[] {
  return [...counts]
    .filter(([id, rows]) => id !== '' && rows > 0 && keyring?.find(id) === undefined)
    .map(([id]) => id)
    .sort();
}

/** A store opened without a key its rows are sealed under: refused at open, not per request. */
export class MissingSealingKeyError extends Error {
  override readonly name = 'MissingSealingKeyError';
  /** The ids of the keys the rows need and the keyring does not have. */
  readonly keyIds: readonly string[];
  /** How many rows each missing key sealed. */
  readonly rows: ReadonlyMap<string, number>;

  constructor(keyIds: readonly string[], counts: ReadonlyMap<string, number>) {
    const rows = new Map(keyIds.map((id) => [id, counts.get(id) ?? 0]));
    const listed = keyIds.map((id) => `${id} (${rows.get(id)} rows)`).join(', ');
    super(
      `The database holds secrets sealed under ${keyIds.length === 1 ? 'key' : 'keys'} ` +
        `${listed}, which the configured keys do not include: give the key that sealed them ` +
        '(LATCHKEY_SECRET_KEY, or the key file they were sealed with).',
    );
    this.keyIds = keyIds;
    this.rows = rows;
  }
}

const NONCE_BYTES = 12;
const TAG_BYTES = 16;

export function sealWith(key: SealingKey, plain: string, context: string): StoredSecret {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key.key, nonce);
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  const value = Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64url');
  return { value, keyId: key.id };
}

export function openWith(key: SealingKey, value: string, context: string): string {
  const sealed = Buffer.from(value, 'base64url');
  if (sealed.length < NONCE_BYTES + TAG_BYTES) {
    throw new SealedValueError(`A value sealed under key ${key.id} is too short.`);
  }
  const decipher = createDecipheriv('aes-256-gcm', key.key, sealed.subarray(0, NONCE_BYTES));
  decipher.setAAD(Buffer.from(context));
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  try {
    const body = sealed.subarray(NONCE_BYTES, sealed.length - TAG_BYTES);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  } catch (error) {
    // The message names the key and the row kind, never a value.
    throw new SealedValueError(`A value sealed under key ${key.id} does not open.`, {
      cause: error,
    });
  }
}

/**
 * How a verifier is stored: never the verifier itself, so a read of the database cannot finish
 * someone else's authorization (§4.6). A typed code has only 40 bits, so a plain digest would
 * let a database reader try every code within its 10 minutes; with a sealing key configured
 * it is an HMAC-SHA256 under a key derived from that key, `k1.<key id>.<mac>`, which a reader
 * of the database alone cannot compute. Without a key (PostgreSQL with none configured, where
 * the client and token secrets are in clear too) it is the SHA-256 of the verifier, as
 * verifiers were stored before keyed digests: such a digest is still matched, so codes issued
 * before an upgrade keep working.
 */
export function verifierDigestWith(key: SealingKey | undefined, verifier: string): string {
  if (key === undefined) return createHash('sha256').update(verifier).digest('base64url');
  return `${KEYED_DIGEST}.${key.id}.${verifierMac(key, verifier)}`;
}

const KEYED_DIGEST = 'k1';

function verifierMac(key: SealingKey, verifier: string): string {
  // A key of its own, derived from the sealing key, so the sealing key has one use only.
  const macKey = createHmac('sha256', key.key).update('latchkey verifier digest').digest();
  return createHmac('sha256', macKey).update(verifier).digest('base64url');
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Seals with the keyring's current key; without a keyring (or a current key), in clear. */
export function createSealer(keyring?: Keyring): Sealer {
  return {
    seal(plain, context) {
      const key = keyring?.current();
      return key === undefined ? { value: plain, keyId: null } : sealWith(key, plain, context);
    },
    open(stored, context) {
      if (stored.keyId === null) return stored.value;
      const key = keyring?.find(stored.keyId);
      if (key === undefined) {
        throw new SealedValueError(
          `A secret is sealed under key ${stored.keyId}, which is not configured ` +
            '(LATCHKEY_SECRET_KEY or the key file).',
        );
      }
      return openWith(key, stored.value, context);
    },
    currentKeyId: () => keyring?.current()?.id ?? null,
    verifierDigest: (verifier) => verifierDigestWith(keyring?.current(), verifier),
    verifierMatches(verifier, stored) {
      const [scheme, keyId, mac] = stored.split('.');
      if (scheme !== KEYED_DIGEST || keyId === undefined || mac === undefined) {
        return sameText(verifierDigestWith(undefined, verifier), stored);
      }
      // A code digested under a key no longer configured cannot be checked: it does not match.
      const key = keyring?.find(keyId);
      return key !== undefined && sameText(verifierMac(key, verifier), mac);
    },
  };
}

/** The additional data binding a sealed value to its row. */
export const sealedIn = {
  client: (key: string) => `clients/${key}`,
  temporaryCredential: (token: string) => `temporary_credentials/${token}`,
  tokenCredential: (token: string) => `token_credentials/${token}`,
  webhook: (id: string) => `webhooks/${id}`,
  previousCredential: (id: string) => `client_previous_credentials/${id}`,
} as const;
