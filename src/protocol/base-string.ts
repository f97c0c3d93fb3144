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
  const encoded: string[] = new Array(parameters.length);
  for (let i = 0; i < parameters.length; i++) {
    const [name, value] = parameters[i]!;
    encoded[i] = `${percentEncode(name)}=${percentEncode(value)}`;
  }
  // Encoded text is ASCII, so comparing code units is comparing bytes (§3.4.1.3.2 step 2).
  encoded.sort(compareNameValue);
  return encoded.join('&');
}

function compareNameValue(a: string, b: string): number {
  const ea = a.indexOf('=');
  const eb = b.indexOf('=');
  const na = a.slice(0, ea);
  const nb = b.slice(0, eb);
  if (na !== nb) return na < nb ? -1 : 1;
  const va = a.slice(ea + 1);
  const vb = b.slice(eb + 1);
  return va === vb ? 0 : va < vb ? -1 : 1;
}

/** §3.4.1.1: METHOD & encoded base string URI & encoded normalized parameters. */
export function signatureBaseString(
  target: RequestTarget,
  parameters: readonly Parameter[],
): string {
  return (
    percentEncode(target.method.toUpperCase()) +
    '&' +
    percentEncode(baseStringUri(target.scheme, target.host, target.path)) +
    '&' +
    percentEncode(normalizeParameters(parameters))
  );
}
