/**
 * The stored form of a nonce key (RFC 5849 §3.3): a 64-bit digest of (client, token,
 * timestamp, nonce), so every adapter keeps 8 bytes per nonce however long the strings are.
 * The strings are never stored, so a replay check needs only this value.
 */
import { createHash } from 'node:crypto';
import type { NonceKey } from './types.ts';

/** Versioned so a future encoding can never collide with this one. */
const domain = 'latchkey nonce v1';

/**
 * The first 8 bytes of SHA-256 over a length-prefixed encoding of the key, as a signed 64-bit
 * integer (the width of a SQLite INTEGER and a PostgreSQL bigint). Length prefixes keep
 * ('ab', 'c') and ('a', 'bc') apart; a collision among the nonces live in one second is
 * about n²/2⁶⁵, far below any request rate we serve.
 *
 * @example nonceHash({ clientKey: 'k', token: '', timestamp: 1700000000, nonce: 'n' })
 */
export function nonceHash(key: NonceKey): bigint {
  const hash = createHash('sha256');
  for (const part of [domain, key.clientKey, key.token, String(key.timestamp), key.nonce]) {
    const bytes = Buffer.from(part, 'utf8');
    const length = Buffer.allocUnsafe(4);
    length.writeUInt32BE(bytes.length);
    hash.update(length).update(bytes);
  }
  return hash.digest().readBigInt64BE(0);
}
