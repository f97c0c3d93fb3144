/**
 * RFC 5849 §3.5.1: the `Authorization: OAuth …` header, parsed and built.
 * Parsing is liberal where real clients vary (scheme in any case, optional whitespace,
 * quoted or token values, any parameter order, parameters other than oauth_*) and strict
 * where the spec forbids (a protocol parameter twice, malformed encoding).
 */
import { OAuthError } from './errors.ts';
import { percentDecode, percentEncode } from './percent-encoding.ts';
import type { Parameter } from './types.ts';

export interface AuthorizationHeader {
  /** The realm, if sent; it is never part of the signed parameters (§3.5.1). */
  readonly realm: string | undefined;
  /** Decoded name/value pairs in the order received, realm excluded, oauth_* or not. */
  readonly parameters: Parameter[];
}

/**
 * Parses an Authorization header value. Returns `undefined` when the scheme is not OAuth
 * (another scheme is simply not ours); throws `parameter_rejected` when it is OAuth but broken.
 */
export function parseAuthorizationHeader(value: string): AuthorizationHeader | undefined {
  let i = schemeEnd(value);
  if (i < 0) return undefined;
  const parameters: Parameter[] = [];
  let realm: string | undefined;
  let seen: Set<string> | undefined;
  const n = value.length;
  const hasQuotedPair = value.includes('\\');
  while (i < n) {
    // Optional whitespace and empty list elements (RFC 7230 §7 "#rule") are tolerated.
    const c = value.charCodeAt(i);
    if (c === 0x20 || c === 0x09 || c === 0x2c) {
      i++;
      continue;
    }
    const eq = value.indexOf('=', i);
    if (eq < 0) throw malformed('a parameter without "="');
    const rawName = nameBetween(value, i, eq);
    i = skipSpaces(value, eq + 1);
    let rawValue: string;
    if (value.charCodeAt(i) === 0x22 /* " */) {
      const close = value.indexOf('"', i + 1);
      if (close >= 0 && !hasQuotedPair) {
        rawValue = value.slice(i + 1, close); // the usual case: no quoted-pair inside
        i = close + 1;
      } else {
        let end = i + 1;
        rawValue = '';
        for (; end < n && value[end] !== '"'; end++) {
          if (value[end] === '\\' && end + 1 < n) end++; // quoted-pair (RFC 7230 §3.2.6)
          rawValue += value[end];
        }
        if (end >= n) throw malformed('an unterminated quoted value');
        i = end + 1;
      }
    } else {
      let end = i;
      while (end < n && !isSeparator(value.charCodeAt(end))) end++;
      rawValue = value.slice(i, end);
      i = end;
    }
    i = skipSpaces(value, i);
    if (i < n && value.charCodeAt(i) !== 0x2c) throw malformed('parameters not separated by ","');
    const name = percentDecode(rawName);
    if (name === 'realm') {
      if (realm !== undefined) throw repeated('realm');
      realm = rawValue; // the realm is a plain quoted-string, not percent-encoded
      continue;
    }
    // §3.4.1.3.1 reads every header parameter but realm into the base string, so a name that
    // is not oauth_* is signed like a query parameter (some clients copy the request's
    // parameters here too). Only a protocol parameter is single (§3.1); any name may repeat
    // in the query, and so here.
    if (name.startsWith('oauth_')) {
      // A header has a handful of parameters; a long one (up to Node's 16 KiB) gets a Set.
      if (seen === undefined && parameters.length >= SCANNED) {
        seen = new Set(parameters.map(([known]) => known));
      }
      if (seen === undefined ? parameters.some(([known]) => known === name) : seen.has(name)) {
        throw repeated(name);
      }
    }
    seen?.add(name);
    parameters.push([name, percentDecode(rawValue)]);
  }
  return { realm, parameters };
}

/**
 * Builds `OAuth realm="…", name="value", …` with names and values percent-encoded (§3.5.1).
 * The scheme is sent as `OAuth`, exactly as the spec spells it.
 */
export function buildAuthorizationHeader(parameters: Iterable<Parameter>, realm?: string): string {
  const parts: string[] = [];
  if (realm !== undefined) parts.push(`realm="${realm.replace(/["\\]/g, '\\$&')}"`);
  for (const [name, value] of parameters) {
    parts.push(`${percentEncode(name)}="${percentEncode(value)}"`);
  }
  return parts.length === 0 ? 'OAuth' : `OAuth ${parts.join(', ')}`;
}

/** Up to this many parameters a scan finds a repeated name for less than a Set costs. */
const SCANNED = 16;

/**
 * Where the parameters start after the scheme `OAuth` (any case) and its spaces or tabs, or
 * -1 for another scheme, including one that only starts with "OAuth".
 */
function schemeEnd(value: string): number {
  // OR 0x20 lowercases an ASCII letter and turns no other code into one of these.
  if (
    value.length < 5 ||
    (value.charCodeAt(0) | 0x20) !== 0x6f ||
    (value.charCodeAt(1) | 0x20) !== 0x61 ||
    (value.charCodeAt(2) | 0x20) !== 0x75 ||
    (value.charCodeAt(3) | 0x20) !== 0x74 ||
    (value.charCodeAt(4) | 0x20) !== 0x68
  ) {
    return -1;
  }
  if (value.length === 5) return 5;
  const next = value.charCodeAt(5);
  return next === 0x20 || next === 0x09 ? skipSpaces(value, 5) : -1;
}

/**
 * The parameter name in value[from, to), without the whitespace around it. The usual name,
 * visible ASCII with no quote or comma, is checked code by code; anything else is trimmed
 * and tested as text.
 */
function nameBetween(value: string, from: number, to: number): string {
  let end = to;
  while (end > from && isSpace(value.charCodeAt(end - 1))) end--;
  let plain = end > from;
  for (let i = from; plain && i < end; i++) {
    const c = value.charCodeAt(i);
    plain = c > 0x20 && c < 0x7f && c !== 0x22 && c !== 0x2c;
  }
  if (plain) return value.slice(from, end);
  const name = value.slice(from, to).trim();
  if (name === '' || /[\s",]/.test(name)) throw malformed('a malformed parameter name');
  return name;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09;
}

/** The index of the first character from `i` on that is not a space or a tab. */
function skipSpaces(value: string, i: number): number {
  let c = value.charCodeAt(i);
  while (c === 0x20 || c === 0x09) c = value.charCodeAt(++i);
  return i;
}

/** Ends an unquoted value: ",", space or tab. */
function isSeparator(c: number): boolean {
  return c === 0x2c || c === 0x20 || c === 0x09;
}

function malformed(what: string): OAuthError {
  return new OAuthError('parameter_rejected', `The Authorization header has ${what}.`);
}

function repeated(name: string): OAuthError {
  return new OAuthError(
    'parameter_rejected',
    `The Authorization header gives "${printable(name)}" more than once.`,
    { advice: { oauth_parameters_rejected: name } },
  );
}

/** Names are echoed in messages; keep them short and printable. */
export function printable(name: string): string {
  const clean = name.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > 64 ? `${clean.slice(0, 64)}…` : clean;
}
