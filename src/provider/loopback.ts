/**
 * The one answer to "does this host or address stay on this machine?", asked of a URL's host
 * (an `http` callback or OpenID Connect issuer is allowed only there) and of a connection's
 * address (plain HTTP on loopback counts as a secure channel, RFC 5849 §2.1 and §3.4.4; a
 * direct loopback peer may read the metrics). Loopback is:
 *   - IPv4 127.0.0.0/8 (RFC 1122 §3.2.1.3), in any spelling `isIP` accepts;
 *   - IPv6 `::1` (RFC 4291 §2.5.3), in any spelling (`0:0:0:0:0:0:0:1`);
 *   - an IPv4-mapped 127.x address (`::ffff:127.0.0.1`, how a dual-stack socket reports an
 *     IPv4 peer, or `::ffff:7f00:1`, how a URL writes it);
 *   - the name `localhost` and names under it (RFC 6761 §6.3), with or without the final dot.
 * Brackets around an IPv6 literal (a URL's host) and letter case do not matter. Anything else
 * (another name, `127.example.com`, an empty or absent value) is not loopback.
 */
import { BlockList, isIP } from 'node:net';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** True when `host` (a URL's hostname or a socket address) is loopback, as described above. */
export function isLoopback(host: string | undefined): boolean {
  if (host === undefined) return false;
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const family = isIP(bare);
  // A mapped IPv4 address is checked against the IPv4 block (BlockList does so for ipv6).
  if (family !== 0) return LOOPBACK.check(bare, family === 6 ? 'ipv6' : 'ipv4');
  const name = bare.endsWith('.') ? bare.slice(0, -1) : bare;
  return name === 'localhost' || (name.endsWith('.localhost') && name.length > 10);
}
