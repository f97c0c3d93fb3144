/**
 * The one path the gateway decides on and forwards (RFC 3986 §6.2.2): percent-encoded
 * unreserved characters decoded (`/%61dmin` is `/admin`), the hex of every other escape in
 * upper case, dot segments resolved (§5.2.4), repeated slashes merged, and every character a
 * path cannot carry as it is (§3.3: `"`, `<`, `{`, a byte above 0x7F, …) percent-encoded.
 * Spellings that servers read differently are refused instead of guessed at: a `#` anywhere in
 * the target (a fragment is never sent, RFC 9112 §3.2; a URL parser drops it and what follows,
 * `..` included), an encoded slash or backslash (`%2F`, `%5C`), a raw backslash, an encoded
 * NUL, a path parameter (`;` or `%3B`: Tomcat and Spring drop it, other servers keep it), an
 * encoded dot segment (`%2e%2e`), a double encoding (`%25` followed by two hex digits:
 * `/%2561dmin` is `/admin` to a server that decodes twice) and a malformed escape. The result
 * is a fixed point of every URL parser (nothing left to resolve, drop or encode): the rules
 * match it, the upstream receives exactly it, byte for byte, and nothing re-parses it on the
 * way, so what was decided is what is served (docs/gateway.md).
 */
import { OAuthError } from '../../protocol/index.ts';

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;
/** Escapes no two servers agree on: `/`, `\`, NUL and `;`. */
const AMBIGUOUS = /%(2f|5c|00|3b)/i;
/**
 * An escaped `%` followed by two hex digits once unreserved escapes are decoded (`%2561`,
 * `%25%36%31`): an upstream or a framework that decodes twice reads `%61`, then `a`, while the
 * rules matched the path with `%2561` in it.
 */
const DOUBLE_ENCODED = /%25[0-9A-Fa-f]{2}/;
/**
 * Nothing to do for most paths: only characters a path carries as they are (RFC 3986 §3.3
 * `pchar` less `%` and `;`, which need a look), no dot segment, no empty segment.
 */
const NEEDS_WORK = /[^A-Za-z0-9\-._~!$&'()*+,=:@/]|\/\.|\/\//;
/** A character a path segment cannot carry as it is (§3.3 `pchar`; `%` begins an escape). */
const NOT_PCHAR = /[^A-Za-z0-9\-._~!$&'()*+,=:@%]/gu;
/** `http://host` in an absolute-form request target (RFC 7230 §5.3.2). */
const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/;

function refuse(message: string): never {
  throw new OAuthError('parameter_rejected', message, { status: 400 });
}

/**
 * A character a path cannot carry, percent-encoded: Node hands the request target over one
 * character per byte (latin1), so the byte is its code; a longer code (a target given by an
 * embedder) is its UTF-8 bytes.
 */
function encodeCharacter(character: string): string {
  const code = character.charCodeAt(0);
  if (code <= 0xff) return `%${code.toString(16).toUpperCase().padStart(2, '0')}`;
  try {
    return encodeURIComponent(character);
  } catch {
    return refuse('The path has a character that is not valid text (a lone surrogate).');
  }
}

/**
 * One segment with unreserved escapes decoded, the others upper-cased, and the characters a
 * path cannot carry encoded.
 */
function normalizeSegment(segment: string): string {
  let normalized = segment;
  if (segment.includes('%')) {
    normalized = segment.replace(/%(.{0,2})/g, (_escape, hex: string) => {
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) refuse('The path has a malformed percent-escape.');
      const character = String.fromCharCode(Number.parseInt(hex, 16));
      return UNRESERVED.test(character) ? character : `%${hex.toUpperCase()}`;
    });
  }
  return normalized.replace(NOT_PCHAR, encodeCharacter);
}

/**
 * The normalized path of a request target (its query left out), or a 400 `parameter_rejected`
 * naming what is ambiguous.
 */
export function normalizeGatewayPath(target: string): string {
  // Before anything else: whatever follows a `#` is gone once a URL parser reads the target,
  // `/public/..#` becoming `/`, so no reading of it is safe to decide on.
  if (target.includes('#')) {
    refuse(
      'The request target has a "#" (a fragment), which is never sent in HTTP; leave it out or send it as %23.',
    );
  }
  const question = target.indexOf('?');
  let path = question < 0 ? target : target.slice(0, question);
  const absolute = ABSOLUTE_FORM.exec(path);
  if (absolute !== null) path = path.slice(absolute[0].length) || '/';
  if (!path.startsWith('/')) refuse('The request target must be a path starting with "/".');
  if (!NEEDS_WORK.test(path)) return path;
  if (path.includes('\\'))
    refuse('The path has a backslash, which servers read differently; send "/" instead.');
  // `/admin;x/y` is `/admin/y` to Tomcat and Spring (a path parameter), `/admin;x/y` elsewhere.
  if (path.includes(';'))
    refuse('The path has a ";" (a path parameter), which servers read differently.');
  if (AMBIGUOUS.test(path)) {
    refuse(
      'The path has an encoded "/", "\\", NUL or ";" (%2F, %5C, %00, %3B), which servers read differently; send the path without it.',
    );
  }
  const output: string[] = [];
  const segments = path.slice(1).split('/');
  segments.forEach((raw, index) => {
    const segment = normalizeSegment(raw);
    if (DOUBLE_ENCODED.test(segment)) {
      refuse(
        'The path has an encoded "%" followed by two hex digits (%25XX, double encoding), which servers read differently; send the path encoded once.',
      );
    }
    const last = index === segments.length - 1;
    if (segment === '.' || segment === '..') {
      if (raw !== segment) {
        refuse('The path has an encoded dot segment (%2E), which servers read differently.');
      }
      if (segment === '..') output.pop();
      // A trailing dot segment leaves a directory: "/a/b/.." is "/a/".
      if (last) output.push('');
      return;
    }
    // Empty segments are merged ("//" is "/"), except a trailing one ("/a/" stays "/a/").
    if (segment === '' && !last) return;
    output.push(segment);
  });
  return `/${output.join('/')}`;
}
