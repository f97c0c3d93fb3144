/**
 * Turns a Fastify request into the provider's IncomingRequest. The base string URI (§3.4.1.2)
 * must be the URI the client used: the Host header and the connection's scheme, or — only
 * when the operator declared a trusted proxy — what the proxy says in Forwarded or
 * X-Forwarded-Proto / X-Forwarded-Host.
 */
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { collectParameters, OAuthError } from '../protocol/index.ts';
import { isLoopback } from '../provider/index.ts';
import type { IncomingRequest } from '../provider/index.ts';

export interface TransportSettings {
  readonly tls: boolean;
  readonly trustProxy: boolean;
  readonly insecureHttp: boolean;
}

export function toIncomingRequest(
  request: FastifyRequest,
  transport: TransportSettings,
): IncomingRequest {
  const body = typeof request.body === 'string' ? request.body : undefined;
  const rawBody = Buffer.isBuffer(request.body) ? request.body : undefined;
  // request.ip: the socket's peer, or the client a trusted proxy names (X-Forwarded-For).
  return incomingFromNode(request.raw, body, transport, undefined, rawBody, request.ip);
}

/** The same from a plain node:http request and its raw body text (middleware adapters). */
export function incomingFromNode(
  request: IncomingMessage,
  body: string | undefined,
  transport: TransportSettings,
  /** The URL as the client sent it, where a framework rewrites `request.url` (Express mounts). */
  originalUrl?: string,
  /** The bytes of a body that is not form-encoded, when read (for oauth_body_hash). */
  rawBody?: Uint8Array,
  /** The client's address, where the framework knows it better than the socket (a proxy). */
  address?: string,
): IncomingRequest {
  const url = originalUrl ?? request.url ?? '/';
  const question = url.indexOf('?');
  let path = question < 0 ? url : url.slice(0, question);
  if (!path.startsWith('/')) path = absoluteFormPath(path); // "GET http://host/path" (RFC 7230 §5.3.2)
  const { scheme, host } = clientOrigin(request, transport);
  return {
    method: request.method ?? 'GET',
    scheme,
    host,
    path,
    query: question < 0 ? '' : url.slice(question + 1),
    authorization: request.headers.authorization,
    contentType: request.headers['content-type'],
    body,
    rawBody,
    secure: isSecureChannel(request, transport, scheme),
    address: address ?? request.socket?.remoteAddress,
    userAgent: request.headers['user-agent'],
  };
}

/**
 * The scheme and Host the client used (§3.4.1.2): the connection's, or a trusted proxy's.
 * The base string URI uses it; the absolute URLs the server writes do not (public-url.ts).
 */
export function clientOrigin(
  request: IncomingMessage,
  transport: TransportSettings,
): { scheme: string; host: string } {
  let scheme = transport.tls ? 'https' : 'http';
  let host = request.headers.host ?? '';
  if (transport.trustProxy) {
    const forwarded = forwardedByProxy(request);
    if (forwarded.proto !== undefined) scheme = forwarded.proto;
    if (forwarded.host !== undefined) host = forwarded.host;
  }
  return { scheme, host };
}

/**
 * Whether an adapter must read a body that is not form-encoded before verification: the
 * route requires a body hash, or the request carries `oauth_body_hash` (in the header or
 * the query; a form body takes none). Parsed as verification will parse it; a header or
 * query that does not parse is refused by verification either way.
 */
export function needsBodyBytes(
  request: IncomingMessage,
  requireBodyHash: boolean,
  originalUrl?: string,
): boolean {
  if (requireBodyHash) return true;
  const url = originalUrl ?? request.url ?? '/';
  const question = url.indexOf('?');
  const authorization = request.headers.authorization;
  if (question < 0 && authorization === undefined) return false;
  try {
    return collectParameters({
      authorization,
      query: question < 0 ? '' : url.slice(question + 1),
    }).protocol.has('oauth_body_hash');
  } catch {
    return false;
  }
}

/** The whole body as bytes, at most `limit` of them (413 beyond). */
export async function readBodyBytes(
  stream: AsyncIterable<unknown>,
  limit: number,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) {
      throw new OAuthError('parameter_rejected', 'The request body is too large.', { status: 413 });
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * The one answer to "did this request come over a secure channel?" (RFC 5849 §2.1 and §2.3:
 * TLS or an equivalent; §3.4.4 for PLAINTEXT), which the provider's channel step enforces:
 *   - the operator allowed plain HTTP (`insecureHttp`): yes;
 *   - behind a trusted proxy, only the scheme the client used, as the proxy forwards it
 *     (`clientOrigin`): the proxy's own hop often arrives over loopback, which proves
 *     nothing about the client's;
 *   - otherwise TLS on the connection, or a connection that arrived on a loopback interface
 *     (nothing crossed a network).
 */
export function isSecureChannel(
  request: IncomingMessage,
  transport: TransportSettings,
  scheme: string,
): boolean {
  if (transport.insecureHttp) return true;
  if (transport.trustProxy) return scheme === 'https';
  return scheme === 'https' || arrivedOnLoopback(request);
}

/** The connection came in on a loopback interface (an injected request has no local address). */
function arrivedOnLoopback(request: IncomingMessage): boolean {
  const socket = request.socket;
  return isLoopback(socket.localAddress ?? socket.remoteAddress);
}

function absoluteFormPath(target: string): string {
  try {
    return new URL(target).pathname;
  } catch {
    return '/';
  }
}

/** RFC 7239 `Forwarded` first (its first element: the proxy nearest the client), else X-Forwarded-*. */
function forwardedByProxy(request: IncomingMessage): { proto?: string; host?: string } {
  const result: { proto?: string; host?: string } = {};
  const forwarded = request.headers.forwarded;
  if (typeof forwarded === 'string') {
    const first = forwarded.split(',')[0] ?? '';
    for (const pair of first.split(';')) {
      const eq = pair.indexOf('=');
      if (eq < 0) continue;
      const name = pair.slice(0, eq).trim().toLowerCase();
      const value = pair
        .slice(eq + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1');
      if (name === 'proto' && /^https?$/i.test(value)) result.proto = value.toLowerCase();
      if (name === 'host' && value !== '') result.host = value;
    }
  }
  const proto = firstValue(request.headers['x-forwarded-proto']);
  const host = firstValue(request.headers['x-forwarded-host']);
  if (result.proto === undefined && proto !== undefined && /^https?$/i.test(proto))
    result.proto = proto.toLowerCase();
  if (result.host === undefined && host !== undefined && host !== '') result.host = host;
  return result;
}

function firstValue(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  return value?.split(',')[0]?.trim();
}

/**
 * Bodies as verification reads them: a form body as text, for its parameters (§3.4.1.3.1),
 * any other as bytes, unparsed, for an oauth_body_hash to be checked against.
 */
export function keepBodiesForVerification(scope: FastifyInstance, bodyLimit: number): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit },
    (_request, body, done) => done(null, body),
  );
  scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_request, body, done) =>
    done(null, body),
  );
}
