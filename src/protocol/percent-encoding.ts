/**
 * RFC 5849 §3.6 percent-encoding: UTF-8 first, then every octet outside the RFC 3986
 * unreserved set (ALPHA, DIGIT, "-", ".", "_", "~") as %XX with uppercase hex. A space is
 * %20, never "+". Written here on purpose: platform and framework encoders differ (§3.6).
 */
import { OAuthError } from './errors.ts';

const UNRESERVED_ONLY = /^[A-Za-z0-9\-._~]*$/;
const HEX = '0123456789ABCDEF';
const IS_UNRESERVED = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~') {
  IS_UNRESERVED[c.charCodeAt(0)] = 1;
}

/** `%XX` for every ASCII code, or the character itself where it is unreserved. */
const ASCII_ENCODED: string[] = Array.from({ length: 128 }, (_, code) =>
  IS_UNRESERVED[code] === 1 ? String.fromCharCode(code) : '%' + HEX[code >> 4] + HEX[code & 15],
);

/** Percent-encodes a text value (§3.6): UTF-8, then unreserved characters kept as they are. */
export function percentEncode(value: string): string {
  if (UNRESERVED_ONLY.test(value)) return value; // the common case costs one regex test
  let encoded: string;
  try {
    // The native encoder does the UTF-8 and uppercase %XX work; it leaves five sub-delims of
    // RFC 3986 ("!", "'", "(", ")", "*") that §3.6 must encode, fixed up after.
    encoded = encodeURIComponent(value);
  } catch {
    // A lone surrogate (URIError): encode as UTF-8 does, as U+FFFD (as TextEncoder does).
    return percentEncodeBytes(Buffer.from(value, 'utf8'));
  }
  return SUB_DELIMS.test(encoded) ? encoded.replace(SUB_DELIMS_ALL, encodeAscii) : encoded;
}

/** The characters encodeURIComponent leaves that are not unreserved (RFC 3986 §2.3). */
const SUB_DELIMS = /[!'()*]/;
const SUB_DELIMS_ALL = /[!'()*]/g;

function encodeAscii(character: string): string {
  return ASCII_ENCODED[character.charCodeAt(0)]!;
}

/** Percent-encodes octets that are not text (§3.6 step 1 is skipped for binary values). */
export function percentEncodeBytes(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) {
    if (byte < 128 && IS_UNRESERVED[byte] === 1) out += String.fromCharCode(byte);
    else out += '%' + HEX[byte >> 4] + HEX[byte & 15];
  }
  return out;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Decodes a percent-encoded value to text. Characters that need no decoding pass through
 * (liberal in what real clients send); a "%" not followed by two hex digits, or octets that
 * are not UTF-8, are rejected with `parameter_rejected`.
 */
export function percentDecode(value: string): string {
  if (!value.includes('%')) return value;
  return decodeAscii(value) ?? decodeUtf8(value);
}

/**
 * The common case on the hot path (a signature's "%3D", an encoded URL), without the Buffer
 * round trip: ASCII text whose escapes are ASCII decodes code by code. Undefined otherwise,
 * including a malformed escape, so the full decoder makes the one decision and its error.
 */
function decodeAscii(value: string): string | undefined {
  if (NON_ASCII.test(value)) return undefined;
  let out = '';
  let from = 0;
  for (let i = value.indexOf('%'); i >= 0; i = value.indexOf('%', from)) {
    const high = hexValue(value.charCodeAt(i + 1));
    const low = hexValue(value.charCodeAt(i + 2));
    if (high < 0 || high > 7 || low < 0) return undefined;
    out += value.slice(from, i) + String.fromCharCode((high << 4) | low);
    from = i + 3;
  }
  return out + value.slice(from);
}

const NON_ASCII = /[\u0080-\uffff]/; // any UTF-16 code unit past ASCII, surrogates included

function decodeUtf8(value: string): string {
  const bytes = Buffer.from(value, 'utf8');
  const out = Buffer.allocUnsafe(bytes.length);
  let length = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (byte !== 0x25) {
      out[length++] = byte;
      continue;
    }
    const high = hexValue(bytes[i + 1]);
    const low = hexValue(bytes[i + 2]);
    if (high < 0 || low < 0) {
      throw new OAuthError(
        'parameter_rejected',
        'A value has a "%" not followed by two hex digits.',
      );
    }
    out[length++] = (high << 4) | low;
    i += 2;
  }
  try {
    return utf8.decode(out.subarray(0, length));
  } catch (cause) {
    throw new OAuthError('parameter_rejected', 'A percent-encoded value is not valid UTF-8.', {
      cause,
    });
  }
}

/** The value of a hex digit's code; -1 for anything else (NaN and undefined past the end). */
function hexValue(byte: number | undefined): number {
  if (byte === undefined) return -1;
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  if (byte >= 0x41 && byte <= 0x46) return byte - 0x37;
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x57;
  return -1;
}
