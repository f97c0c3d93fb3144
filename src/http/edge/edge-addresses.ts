/**
 * Which peers may speak for a client on the forward-auth endpoint: the edges (nginx, Caddy,
 * Traefik, Envoy) whose X-Original-* / X-Forwarded-* headers describe the request they are
 * asking about. Anyone else could name any request and any identity, so the list is checked
 * against the connection's own peer address, never a forwarding header (docs/edge.md).
 */
import { BlockList, isIP } from 'node:net';

/** The forward-auth endpoint's path, and the prefix Envoy's ext_authz appends the original path to. */
export const DEFAULT_FORWARD_AUTH_PATH = '/auth/verify';

/** Loopback only: an edge on this machine. */
export const DEFAULT_TRUSTED_EDGES: readonly string[] = ['127.0.0.0/8', '::1'];

/** A test of a peer address against the trusted edges. */
export type EdgeCheck = (address: string | undefined) => boolean;

/**
 * Parses addresses and CIDR blocks (`10.0.0.5`, `10.0.0.0/8`, `fd00::/8`) into a check.
 *
 * @throws TypeError naming the entry, e.g. `"10.0.0.0/33" is not an address or CIDR block`.
 */
export function edgeCheck(entries: readonly string[]): EdgeCheck {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix, extra] = entry.trim().split('/');
    const family = isIP(address);
    const bits = prefix === undefined ? undefined : Number(prefix);
    const max = family === 6 ? 128 : 32;
    if (
      family === 0 ||
      extra !== undefined ||
      (bits !== undefined && !(prefix !== '' && Number.isInteger(bits) && bits >= 0 && bits <= max))
    ) {
      throw new TypeError(`"${entry}" is not an address or CIDR block`);
    }
    const type = family === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, bits, type);
  }
  return (address) => {
    if (address === undefined) return false;
    // A dual-stack socket reports an IPv4 peer as ::ffff:a.b.c.d.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped !== null) return list.check(mapped[1]!, 'ipv4');
    const family = isIP(address);
    if (family === 0) return false;
    return list.check(address, family === 6 ? 'ipv6' : 'ipv4');
  };
}
