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
  return nonceDigest(key).readBigInt64BE(0);
}

/**
 * The same 64 bits as two 32-bit halves (high signed, low unsigned), for stores that keep
 * them in typed arrays or let SQL join them, without allocating a BigInt per request.
 */
export function nonceHashHalves(key: NonceKey): { readonly high: number; readonly low: number } {
  const digest = nonceDigest(key);
  return { high: digest.readInt32BE(0), low: digest.readUInt32BE(4) };
}

function nonceDigest(key: NonceKey): Buffer {
  // One buffer and one one-shot digest: this runs on every verified request (the hot path).
  const timestamp = String(key.timestamp);
  const size =
    20 +
    domainBytes.length +
    Buffer.byteLength(key.clientKey, 'utf8') +
    Buffer.byteLength(key.token, 'utf8') +
    timestamp.length + // a number in text is ASCII: one byte a character
    Buffer.byteLength(key.nonce, 'utf8');
  const encoded = Buffer.allocUnsafe(size);
  let at = writePart(encoded, 0, domainBytes);
  at = writeText(encoded, at, key.clientKey);
  at = writeText(encoded, at, key.token);
  at = writeText(encoded, at, timestamp);
  writeText(encoded, at, key.nonce);
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
