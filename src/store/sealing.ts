/**
 * Secrets at rest: the client, token and temporary-credential secrets are sealed with
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
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
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
  };
}

/** The additional data binding a sealed value to its row. */
export const sealedIn = {
  client: (key: string) => `clients/${key}`,
  temporaryCredential: (token: string) => `temporary_credentials/${token}`,
  tokenCredential: (token: string) => `token_credentials/${token}`,
} as const;
