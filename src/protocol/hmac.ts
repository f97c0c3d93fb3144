/**
 * HMAC (RFC 2104) as two one-shot digests over the key's padded blocks, for the signature
 * methods of §3.4.2 (HMAC-SHA1 and its SHA-256/512 variants). node:crypto's createHmac makes
 * a Hmac object with a native handle and sets the key up in OpenSSL on every request;
 * `crypto.hash` reuses the digest it fetched once. Preparing a key (its padded blocks) is
 * separate from using it, so a server that sees one client and token secret pair many times
 * can prepare it once and keep it with the credentials (the provider does); this module
 * keeps nothing.
 *
 * A prepared key is secret material like the key itself: kept in memory only, never logged.
 */
import { hash } from 'node:crypto';

export type HmacDigest = 'sha1' | 'sha256' | 'sha512';

/** Block and digest sizes in bytes (FIPS 180-4). */
const SIZES: Readonly<Record<HmacDigest, { block: number; digest: number }>> = {
  sha1: { block: 64, digest: 20 },
  sha256: { block: 64, digest: 32 },
  sha512: { block: 128, digest: 64 },
};

/** A key ready for one digest: its two padded blocks (RFC 2104 §2). */
export interface HmacKey {
  readonly digest: HmacDigest;
  /** The key XOR ipad: one block. */
  readonly inner: Buffer;
  /** The key XOR opad: one block. */
  readonly outer: Buffer;
}

/** Prepares `key` (as UTF-8) for HMAC with `digest`. */
export function prepareHmacKey(digest: HmacDigest, key: string): HmacKey {
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
  return { digest, inner: pads.subarray(0, block), outer: pads.subarray(block) };
}

/** Texts up to this many UTF-16 units get room for their worst-case UTF-8 (a base string is ASCII). */
const SHORT_TEXT = 2048;

/** HMAC of `text` (as UTF-8) under a prepared key, in base64, as createHmac gives it. */
export function hmacBase64(key: HmacKey, text: string): string {
  const { digest, inner, outer } = key;
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
