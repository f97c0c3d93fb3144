/**
 * Who may read `GET /metrics` (docs/decisions.md "Who may read /metrics"). Metrics reveal
 * traffic, client activity and failure patterns, so by default only a scraper on this machine
 * connecting directly gets them; anyone else gets the same 404 as an unknown path.
 *   - `public: true`: anyone (a private network where the scraper runs elsewhere).
 *   - `token`: `Authorization: Bearer <token>`, from anywhere; required even on loopback.
 *   - neither: a loopback peer, not behind a trusted proxy (every request then arrives from
 *     the proxy's address, often loopback) and carrying no forwarding header.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { isLoopback } from '../provider/index.ts';
import type { TransportSettings } from './incoming-request.ts';

export interface MetricsOptions {
  /** Answer /metrics to anyone. */
  readonly public?: boolean | undefined;
  /** Answer /metrics to `Authorization: Bearer <token>` only. */
  readonly token?: string | undefined;
  /** How often the nonce store's size is sampled, ms (default 15000). */
  readonly nonceSampleMs?: number | undefined;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

export function createMetricsAccess(
  options: MetricsOptions,
  transport: TransportSettings,
): (request: FastifyRequest) => boolean {
  if (options.public === true) return () => true;
  if (options.token !== undefined) {
    // Compared as digests: constant time whatever the lengths.
    const expected = digest(options.token);
    return (request) => {
      const header = request.headers.authorization ?? '';
      const match = /^Bearer +(\S+)\s*$/i.exec(header);
      return match !== null && timingSafeEqual(digest(match[1]!), expected);
    };
  }
  return (request) =>
    !transport.trustProxy &&
    isLoopback(request.socket.remoteAddress) &&
    request.headers['forwarded'] === undefined &&
    request.headers['x-forwarded-for'] === undefined;
}
