/**
 * Which URLs a webhook may be sent to (docs/decisions.md "Webhooks and server-side request
 * forgery"). A hook is an address the server itself calls, so an operator's typo or a
 * borrowed admin credential must not turn it into a probe of the private network: only
 * http(s) URLs without credentials, and, unless allowed, no loopback, private, link-local or
 * otherwise non-public address, checked on the URL when the hook is added and on every
 * address its name resolves to when a delivery connects (a name re-pointed later, DNS
 * rebinding, is caught there).
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { InputError } from '../input-error.ts';

/** RFC 6890's special-purpose ranges, with multicast and the reserved blocks. */
const nonPublic = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  nonPublic.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  nonPublic.addSubnet(network, prefix, 'ipv6');
}

/** Whether `address` (an IP literal) is loopback, private or otherwise not on the internet. */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  // An IPv4-mapped IPv6 address (::ffff:127.0.0.1) is checked as the IPv4 address it is.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1] !== undefined) return nonPublic.check(mapped[1], 'ipv4');
  return nonPublic.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** A delivery refused because the receiver's address is not allowed. */
export class AddressNotAllowedError extends Error {
  override readonly name = 'AddressNotAllowedError';
  readonly code = 'ADDRESS_NOT_ALLOWED';
}

/** The host of a URL as an IP literal (brackets removed), or undefined for a name. */
function literalHost(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(host) === 0 ? undefined : host;
}

const MAX_URL_LENGTH = 2048;

/**
 * The hook URL, normalised, or InputError: not http(s), credentials in it, or (unless
 * allowed) a loopback or private literal address or a `localhost` name.
 */
export function checkHookUrl(raw: string, allowPrivateAddresses: boolean): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InputError('url', 'The webhook URL is not an absolute URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InputError('url', `A webhook URL is http or https, not ${url.protocol}`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new InputError('url', 'A webhook URL carries no user name or password.');
  }
  if (url.href.length > MAX_URL_LENGTH) {
    throw new InputError('url', `A webhook URL is at most ${MAX_URL_LENGTH} characters.`);
  }
  if (!allowPrivateAddresses) {
    const literal = literalHost(url);
    const local = url.hostname === 'localhost' || url.hostname.endsWith('.localhost');
    if (local || (literal !== undefined && isNonPublicAddress(literal))) {
      throw new InputError(
        'url',
        `${url.hostname} is a loopback or private address; set webhooks.allowPrivateAddresses ` +
          'to send webhooks there.',
      );
    }
  }
  return url.href;
}

/** Refuses a URL whose literal host is not allowed (names are checked by `guardedLookup`). */
export function checkLiteralHost(url: URL, allowPrivateAddresses: boolean): void {
  const literal = literalHost(url);
  if (!allowPrivateAddresses && literal !== undefined && isNonPublicAddress(literal)) {
    throw new AddressNotAllowedError(`${literal} is not a public address.`);
  }
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for the sockets a delivery opens (net.connect's option): every address the name
 * resolves to must be public, or the connection fails with AddressNotAllowedError.
 */
export function guardedLookup(
  hostname: string,
  options: { family?: number | string; all?: boolean; hints?: number },
  callback: LookupCallback,
): void {
  const family = options.family === 'IPv6' ? 6 : options.family === 'IPv4' ? 4 : options.family;
  dnsLookup(
    hostname,
    { all: true, ...(typeof family === 'number' ? { family } : {}), hints: options.hints ?? 0 },
    (error, addresses) => {
      if (error !== null) return callback(error, []);
      const refused = addresses.find((entry) => isNonPublicAddress(entry.address));
      if (refused !== undefined) {
        return callback(
          new AddressNotAllowedError(`${hostname} resolves to ${refused.address}.`),
          [],
        );
      }
      const first = addresses[0];
      if (first === undefined)
        return callback(new AddressNotAllowedError(`${hostname} has no address.`), []);
      if (options.all === true) return callback(null, addresses);
      return callback(null, first.address, first.family);
    },
  );
}
