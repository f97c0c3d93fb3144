/**
 * The origin of every absolute URL the server writes: the endpoint advertisement, the OpenAPI
 * document's `servers`, the pages (developer portal, documentation), the OpenID Connect
 * `redirect_uri` and the login app's `redirect_to`. It is the configured `publicUrl`, or else
 * the address the server listens on, and never `Host`, `X-Forwarded-Host` or `Forwarded`: a
 * client chooses those (a proxy copies them), so following them would let one requester put
 * its own host into pages a shared cache keeps for everyone, or into a sign-in's redirect.
 */
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { FastifyRequest } from 'fastify';

/** What the origin is built from. */
export interface PublicOrigin {
  /** `publicUrl` as configured; when set, the only origin written. */
  readonly publicUrl?: string | undefined;
  /** The server serves HTTPS itself; read from the connection when not given. */
  readonly tls?: boolean | undefined;
}

/**
 * The origin of the address a connection arrived on: the address the server listens on (the
 * interface the client reached, under a wildcard listen), never a request header.
 */
export function listenOrigin(socket: Socket, tls: boolean): string {
  const raw = socket.localAddress ?? '127.0.0.1';
  const address = raw.startsWith('::ffff:') ? raw.slice('::ffff:'.length) : raw;
  const host = address.includes(':') ? `[${address}]` : address;
  const port = socket.localPort;
  return `${tls ? 'https' : 'http'}://${host}${port === undefined ? '' : `:${port}`}`;
}

/** The public base URL for this request, without a trailing slash. */
export function publicBaseUrl(request: FastifyRequest, origin: PublicOrigin = {}): string {
  if (origin.publicUrl !== undefined) return origin.publicUrl.replace(/\/+$/, '');
  const socket = request.raw.socket;
  return listenOrigin(socket, origin.tls ?? (socket as TLSSocket).encrypted === true);
}
