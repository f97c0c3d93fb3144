/**
 * The stored form of a nonce key (RFC 5849 §3.3): a 64-bit digest of (client, token,
 * timestamp, nonce), so every adapter keeps 8 bytes per nonce however long the strings are.
 * The strings are never stored, so a replay check needs only this value.
 */
import { hash } from 'node:crypto';
import type { NonceKey } from './types.ts';

/** Versioned so a future encoding can never collide with this one. */
const domain = 'latchkey nonce v1';
const domainBytes = Buffer.from(domain, 'utf8');

/**
 * The first 8 bytes of SHA-256 over a length-prefixed encoding of the key, as a signed 64-bit
 * integer (the width of a SQLite INTEGER and a PostgreSQL bigint). Length prefixes keep
 * ('ab', 'c') and ('a', 'bc') apart; a collision among the nonces live in one second is
 * about n²/2⁶⁵, far below any request rate we serve.
 *
 * @example nonceHash({ clientKey: 'k', token: '', timestamp: 1700000000, nonce: 'n' })
 */
export function nonceHash(key: NonceKey): bigint {
  const { high, low } = nonceHashHalves(key);
  return BigInt(high) * 0x100000000n + BigInt(low);
}

/**
 * The same 64 bits as two 32-bit halves (high signed, low unsigned), for stores that keep
 * them in typed arrays or let SQL join them, without allocating a BigInt per request.
 */
export function nonceHashHalves(key: NonceKey): { readonly high: number; readonly low: number } {
  // This runs on every verified request (the hot path). The usual key is ASCII with parts
  // under 128 bytes: then the encoding below is a string whose UTF-8 is the very same bytes
  // (each length prefix is three NULs and one byte under 0x80), hashed in one call with a
  // string out. A Buffer out costs about a microsecond more (docs/benchmarks.md).
  const timestamp = String(key.timestamp);
  const { clientKey, token, nonce } = key;
  if (clientKey.length < 0x80 && token.length < 0x80 && nonce.length < 0x80) {
    const text =
      DOMAIN_PART +
      lengthPrefix(clientKey.length) +
      clientKey +
      lengthPrefix(token.length) +
      token +
      lengthPrefix(timestamp.length) +
      timestamp +
      lengthPrefix(nonce.length) +
      nonce;
    // Only ASCII has one UTF-8 byte per UTF-16 code unit.
    if (Buffer.byteLength(text, 'utf8') === text.length) {
      const digest = hash('sha256', text, 'binary'); // latin1: one character a byte
      return { high: int32At(digest, 0), low: int32At(digest, 4) >>> 0 };
    }
  }
  const digest = nonceDigest(clientKey, token, timestamp, nonce);
  return { high: digest.readInt32BE(0), low: digest.readUInt32BE(4) };
}

const PREFIXES = Array.from({ length: 0x80 }, (_, n) => `\0\0\0${String.fromCharCode(n)}`);
const lengthPrefix = (length: number): string => PREFIXES[length]!;
const DOMAIN_PART = lengthPrefix(domain.length) + domain;

/** Four characters of a latin1 string (one byte each), big-endian, as a signed integer. */
function int32At(bytes: string, at: number): number {
  return (
    (bytes.charCodeAt(at) << 24) |
    (bytes.charCodeAt(at + 1) << 16) |
    (bytes.charCodeAt(at + 2) << 8) |
    bytes.charCodeAt(at + 3)
  );
}

/** The same encoding as bytes, for any text: each part's UTF-8 length, then its UTF-8. */
function nonceDigest(clientKey: string, token: string, timestamp: string, nonce: string): Buffer {
  const size =
    20 +
    domainBytes.length +
    Buffer.byteLength(clientKey, 'utf8') +
    Buffer.byteLength(token, 'utf8') +
    timestamp.length + // a number in text is ASCII: one byte a character
    Buffer.byteLength(nonce, 'utf8');
  const encoded = Buffer.allocUnsafe(size);
  let at = writePart(encoded, 0, domainBytes);
  at = writeText(encoded, at, clientKey);
  at = writeText(encoded, at, token);
  at = writeText(encoded, at, timestamp);
  writeText(encoded, at, nonce);
  return hash('sha256', encoded, 'buffer');
}

/** A 4-byte big-endian length, then the bytes. */
function writePart(target: Buffer, at: number, bytes: Uint8Array): number {
  target.writeUInt32BE(bytes.length, at);
  target.set(bytes, at + 4);
  return at + 4 + bytes.length;
}

function writeText(target: Buffer, at: number, text: string): number {
  const length = target.write(text, at + 4, 'utf8');
  target.writeUInt32BE(length, at);
  return at + 4 + length;
}
