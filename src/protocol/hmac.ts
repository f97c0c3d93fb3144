/**
 * HMAC (RFC 2104) as two one-shot digests over the key's padded blocks, for the signature
 * methods of §3.4.2 (HMAC-SHA1 and its SHA-256/512 variants). node:crypto's createHmac makes
 * a Hmac object with a native handle and sets the key up in OpenSSL on every request;
 * `crypto.hash` reuses the digest it fetched once, so keeping the padded blocks of each key
 * (one client and token secret pair, used for many requests) leaves two digest calls per
 * request. Measured in docs/benchmarks.md.
 *
 * The blocks are secret material like the key itself: kept in memory only, never logged,
 * and bounded in number.
 */
import { hash } from 'node:crypto';

export type HmacDigest = 'sha1' | 'sha256' | 'sha512';

/** Block and digest sizes in bytes (FIPS 180-4). */
const SIZES: Readonly<Record<HmacDigest, { block: number; digest: number }>> = {
  sha1: { block: 64, digest: 20 },
  sha256: { block: 64, digest: 32 },
  sha512: { block: 128, digest: 64 },
};

interface PaddedKey {
  /** The key XOR ipad: one block. */
  readonly inner: Buffer;
  /** The key XOR opad: one block. */
  readonly outer: Buffer;
}

/**
 * Keys whose blocks are kept, per digest (as many as the store's read cache keeps tokens);
 * past the bound the oldest goes. About 300 bytes a key.
 */
export const MAX_HMAC_KEYS = 10_000;
const padded: Record<HmacDigest, Map<string, PaddedKey>> = {
  sha1: new Map(),
  sha256: new Map(),
  sha512: new Map(),
};

function paddedKey(digest: HmacDigest, key: string): PaddedKey {
  const keys = padded[digest];
  const known = keys.get(key);
  if (known !== undefined) return known;
  const { block } = SIZES[digest];
  let bytes: Uint8Array = Buffer.from(key, 'utf8');
  // A key longer than a block is replaced by its digest (RFC 2104 §2).
  if (bytes.length > block) bytes = hash(digest, bytes, 'buffer');
  const pads = Buffer.alloc(2 * block); // one allocation for both blocks
  for (let i = 0; i < block; i++) {
    const byte = bytes[i] ?? 0; // the key padded with zeros to a block
    pads[i] = byte ^ 0x36;
    pads[block + i] = byte ^ 0x5c;
  }
  const made = { inner: pads.subarray(0, block), outer: pads.subarray(block) };
  if (keys.size >= MAX_HMAC_KEYS) keys.delete(keys.keys().next().value!);
  keys.set(key, made);
  return made;
}

/** Texts up to this many UTF-16 units get room for their worst-case UTF-8 (a base string is ASCII). */
const SHORT_TEXT = 2048;

/** HMAC of `text` under `key` (both as UTF-8), in base64, as createHmac gives it. */
export function hmacBase64(digest: HmacDigest, key: string, text: string): string {
  const { inner, outer } = paddedKey(digest, key);
  const { block, digest: size } = SIZES[digest];
  // Room for the text's UTF-8 without measuring it first: at most 3 bytes a UTF-16 unit.
  const room = text.length <= SHORT_TEXT ? 3 * text.length : Buffer.byteLength(text, 'utf8');
  const buffer = Buffer.allocUnsafe(block + room);
  inner.copy(buffer, 0);
  const message = buffer.subarray(0, block + buffer.write(text, block, 'utf8'));
  const last = Buffer.allocUnsafe(block + size);
  outer.copy(last, 0);
  // The inner digest as latin1 ('binary'): one character a byte, cheaper than a Buffer out.
  last.write(hash(digest, message, 'binary'), block, 'latin1');
  return hash(digest, last, 'base64');
}
