/**
 * The HTTP fuzzer's inputs, shared by the seeded CI run (test/http/fuzz.test.ts) and the
 * bench mode that sends a million of them (bench/faults/fuzz.ts): fast-check arbitraries for
 * Authorization headers, query strings and bodies steered into the parsers' corners, raw
 * request bytes, and mutations of a validly signed request. A mutation that changes a signed
 * value (a character of the signature, a query value) makes a request whose signature is bad
 * by construction: the server must never accept it.
 */
import fc from 'fast-check';

/** The seed of the CI run; FUZZ_SEED overrides it to replay another. */
export const FUZZ_SEED = Number(process.env['FUZZ_SEED'] ?? 20261125);

/** Pieces that steer generated text into the parsers' interesting corners. */
const piece = fc.oneof(
  fc.constantFrom(
    'oauth_consumer_key',
    'oauth_token',
    'oauth_signature_method',
    'oauth_signature',
    'oauth_timestamp',
    'oauth_nonce',
    'oauth_version',
    'oauth_callback',
    'oauth_verifier',
    'realm',
    'HMAC-SHA1',
    'PLAINTEXT',
    'RSA-SHA1',
    '1.0',
    '=',
    '"',
    ',',
    '&',
    ' ',
    '\t',
    '%',
    '%2',
    '%zz',
    '%00',
    '%FF',
    '%C3%A9',
    '+',
    '\\',
    'é',
    '\u0000',
    '9999999999999',
  ),
  fc.string({ maxLength: 8 }),
);
export const text = fc.array(piece, { maxLength: 24 }).map((parts) => parts.join(''));

export const contentTypes = fc.constantFrom(
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded; charset=UTF-8',
  'application/json',
  'text/plain',
  'multipart/form-data; boundary=x',
  ';;',
);

export const bodies = fc.oneof(
  text.map((value) => Buffer.from(value, 'utf8')),
  fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
);

/** One byte sequence on a header line or in a request target: no line breaks. */
export function lineSafe(value: string): Buffer {
  return Buffer.from(value.replace(/[\r\n]/g, ''), 'utf8');
}

/** An HTTP/1.1 request as bytes, closing the connection after the answer. */
export function rawRequest(
  host: string,
  method: string,
  target: Buffer,
  headers: ReadonlyArray<readonly [string, Buffer]>,
  body?: Buffer,
): Buffer {
  const lines: Buffer[] = [Buffer.from(`${method} `), target, Buffer.from(' HTTP/1.1\r\n')];
  const all: Array<readonly [string, Buffer]> = [
    ['Host', Buffer.from(host)],
    ['Connection', Buffer.from('close')],
    ...headers,
  ];
  if (body !== undefined) all.push(['Content-Length', Buffer.from(String(body.length))]);
  for (const [name, value] of all) lines.push(Buffer.from(`${name}: `), value, Buffer.from('\r\n'));
  lines.push(Buffer.from('\r\n'));
  if (body !== undefined) lines.push(body);
  return Buffer.concat(lines);
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * The Authorization header with one character of the decoded oauth_signature replaced by a
 * different base64 character: a signature that cannot verify.
 */
export function withSignatureChanged(header: string, at: number, pick: number): string {
  return header.replace(/oauth_signature="([^"]*)"/, (_, encoded: string) => {
    const signature = decodeURIComponent(encoded);
    const index = at % signature.length;
    const others = BASE64.replace(signature[index]!, '');
    const changed =
      signature.slice(0, index) + others[pick % others.length]! + signature.slice(index + 1);
    return `oauth_signature="${encodeURIComponent(changed)}"`;
  });
}
