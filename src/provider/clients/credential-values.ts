/**
 * What a client key, token or secret may be when it is given rather than generated: credentials
 * migrated from another provider, which chose them by its own rules. The spec leaves size and
 * character set open ("Resources: not shown") and a server must not assume value ranges for
 * secrets, so Latchkey accepts any text a client could hold and sign with; it only generates
 * unreserved ones (secrets.ts). RFC 5849 §3.4.2 and §3.4.4 percent-encode the secrets into the
 * key, so the characters never reach the wire unencoded.
 */
import { InputError } from '../input-error.ts';

/** Longest client key or token identifier, in UTF-8 bytes (the protocol check's bound). */
export const MAX_IDENTIFIER_BYTES = 255;
/** Longest client or token secret, in UTF-8 bytes. */
export const MAX_SECRET_BYTES = 1024;

/** A UTF-16 surrogate without its pair: not Unicode text, and no UTF-8 for it. */
const LONE_SURROGATE = /\p{Cs}/u;
/** Controls (C0, DEL, C1) and the line and paragraph separators: not printable. */
const NOT_PRINTABLE = /[\p{Cc}\u2028\u2029]/u;

function byteLength(value: string): number {
  return Buffer.byteLength(value, 'utf8');
}

/**
 * A client key or token given by an operator: any printable text of 1 to 255 UTF-8 bytes.
 * `label` names it in the message ("A client key").
 */
export function checkIdentifier(field: string, label: string, value: string): void {
  const bytes = byteLength(value);
  if (
    bytes === 0 ||
    bytes > MAX_IDENTIFIER_BYTES ||
    LONE_SURROGATE.test(value) ||
    NOT_PRINTABLE.test(value)
  ) {
    throw new InputError(
      field,
      `${label} is 1 to ${MAX_IDENTIFIER_BYTES} bytes of printable text (UTF-8, no control characters).`,
    );
  }
}

/**
 * A client or token secret given by an operator: any Unicode text of 1 to 1,024 UTF-8 bytes
 * but U+0000 (PostgreSQL's text cannot hold it, and C client libraries would cut it there).
 */
export function checkSecret(field: string, label: string, value: string): void {
  const bytes = byteLength(value);
  if (bytes === 0 || bytes > MAX_SECRET_BYTES || LONE_SURROGATE.test(value)) {
    throw new InputError(
      field,
      `${label} is 1 to ${MAX_SECRET_BYTES} bytes of Unicode text (UTF-8).`,
    );
  }
  if (value.includes('\u0000')) {
    throw new InputError(field, `${label} may not contain the character U+0000.`);
  }
}
