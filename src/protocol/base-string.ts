/**
 * RFC 5849 §3.4.1: the signature base string, from the base string URI (§3.4.1.2) and the
 * normalized request parameters (§3.4.1.3.2).
 */
import { OAuthError } from './errors.ts';
import { percentEncode } from './percent-encoding.ts';
import type { Parameter, RequestTarget } from './types.ts';

const DEFAULT_PORTS: Readonly<Record<string, string>> = { http: '80', https: '443' };

/**
 * §3.4.1.2: scheme and host lowercased, the scheme's default port dropped and any other
 * kept, the path as sent, no query and no fragment.
 */
export function baseStringUri(scheme: string, host: string, path: string): string {
  const lowerScheme = scheme.toLowerCase();
  let authority = host.toLowerCase();
  // Split the port off the host, IPv6 literals ("[::1]:8080") included.
  const colon = authority.lastIndexOf(':');
  if (colon > authority.lastIndexOf(']')) {
    const port = authority.slice(colon + 1);
    if (!/^\d*$/.test(port)) {
      throw new OAuthError('parameter_rejected', 'The Host header has an invalid port.');
    }
    const hostname = authority.slice(0, colon);
    const normalizedPort = port.replace(/^0+(?=\d)/, '');
    authority =
      port === '' || DEFAULT_PORTS[lowerScheme] === normalizedPort
        ? hostname
        : `${hostname}:${normalizedPort}`;
  }
  const hash = path.indexOf('#');
  let cleanPath = hash < 0 ? path : path.slice(0, hash);
  const question = cleanPath.indexOf('?');
  if (question >= 0) cleanPath = cleanPath.slice(0, question);
  return `${lowerScheme}://${authority}${cleanPath === '' ? '/' : cleanPath}`;
}

/**
 * §3.4.1.3.2: encode each name and value, sort by name then value in byte order, join
 * with "=" (even for an empty value) and "&".
 */
export function normalizeParameters(parameters: readonly Parameter[]): string {
  return encodeAndSort(parameters).join('&').replaceAll(SEPARATOR, '=');
}

/**
 * Each pair percent-encoded (§3.6) as `name NUL value`, sorted by name, then value
 * (§3.4.1.3.2 step 2). Encoded text is ASCII without NUL, so the default sort's code-unit
 * order is byte order, and a NUL, below every other code, ends the name first: "a" sorts
 * before "a-b" as a name should, where "a=" would sort after "a-b=". The default sort also
 * spares a JavaScript comparator call per comparison.
 */
function encodeAndSort(parameters: readonly Parameter[]): string[] {
  const encoded = new Array<string>(parameters.length);
  for (let i = 0; i < parameters.length; i++) {
    const [name, value] = parameters[i]!;
    encoded[i] = percentEncode(name) + SEPARATOR + percentEncode(value);
  }
  if (encoded.length > INSERTION_SORT_MAX) return encoded.sort();
  // A request carries a handful of parameters, often sorted already: an insertion sort finds
  // that in one pass and sorts the rest in place, where Array.prototype.sort's set-up alone
  // costs more (docs/benchmarks.md).
  for (let i = 1; i < encoded.length; i++) {
    const pair = encoded[i]!;
    let j = i - 1;
    while (j >= 0 && encoded[j]! > pair) {
      encoded[j + 1] = encoded[j]!;
      j--;
    }
    encoded[j + 1] = pair;
  }
  return encoded;
}

/** Up to this many parameters the insertion sort runs; past it, the built-in sort. */
const INSERTION_SORT_MAX = 32;

const SEPARATOR = '\0';

/**
 * The normalized parameters percent-encoded once more, as the base string carries them
 * (§3.4.1.1 step 5), built pair by pair: encoding already-encoded text changes only "%", and
 * the joining "=" and "&" become "%3D" and "%26". Same result as
 * percentEncode(normalizeParameters(parameters)), without re-scanning one long string.
 */
function encodedNormalizedParameters(parameters: readonly Parameter[]): string {
  const pairs = encodeAndSort(parameters);
  let out = '';
  for (let i = 0; i < pairs.length; i++) {
    const pair = pairs[i]!;
    out += (i === 0 ? '' : '%26') + encodePercent(pair).replace(SEPARATOR, '%3D');
  }
  return out;
}

function encodePercent(encoded: string): string {
  return encoded.includes('%') ? encoded.replaceAll('%', '%25') : encoded;
}

/** §3.4.1.1: METHOD & encoded base string URI & encoded normalized parameters. */
export function signatureBaseString(
  target: RequestTarget,
  parameters: readonly Parameter[],
): string {
  return baseStringPrefix(target) + encodedNormalizedParameters(parameters);
}

/** The first two parts of the base string and their "&"s. */
function baseStringPrefix(target: RequestTarget): string {
  const { method, scheme, host, path } = target;
  return `${percentEncode(method.toUpperCase())}&${percentEncode(baseStringUri(scheme, host, path))}&`;
}
