/**
 * The reference for the gateway: the leanest correct reverse proxy we could write, with no
 * verification at all, on node:http with an undici Pool (`dispatch` with a handler, the
 * cheapest undici API: no Readable per response). It forwards method, path and query as
 * sent, every end-to-end header (hop-by-hop ones dropped, RFC 9110 §7.6.1), the request
 * body streamed, and streams the answer back with backpressure; 502 when the upstream
 * cannot be reached, 504 when it does not answer in time. Whatever the gateway costs above
 * this row is ours (verification, Fastify, the proxying); up to this row is the
 * price of proxying on this topology.
 *
 * Usage: node bench/servers/bare-proxy.ts --upstream URL [--port N]
 */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import type { Dispatcher } from 'undici';
import { announceReady } from './ready.ts';

const { values } = parseArgs({
  options: { upstream: { type: 'string' }, port: { type: 'string', default: '0' } },
});
if (values.upstream === undefined) throw new Error('--upstream URL is required');

const TIMEOUT_MS = 30_000;
// As many upstream connections as the generator opens, so no request waits for one.
const pool = new Pool(values.upstream, {
  connections: 128,
  pipelining: 1,
  connectTimeout: 5_000,
  headersTimeout: TIMEOUT_MS,
  bodyTimeout: TIMEOUT_MS,
  keepAliveTimeout: 60_000,
});

// RFC 9110 §7.6.1: connection-specific fields are not forwarded (host is set by undici).
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'host',
]);

function requestHeaders(raw: readonly string[], connection: string | undefined): string[] {
  const listed = connection === undefined ? undefined : connection.toLowerCase().split(/\s*,\s*/);
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (HOP_BY_HOP.has(name) || listed?.includes(name) === true) continue;
    out.push(name, raw[i + 1]!);
  }
  return out;
}

function responseHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const connection = headers.connection;
  const listed =
    typeof connection === 'string' ? connection.toLowerCase().split(/\s*,\s*/) : undefined;
  const out: OutgoingHttpHeaders = {};
  for (const name in headers) {
    if (HOP_BY_HOP.has(name) || listed?.includes(name) === true) continue;
    out[name] = headers[name];
  }
  return out;
}

const server = createServer((request, response) => {
  const hasBody =
    request.headers['content-length'] !== undefined ||
    request.headers['transfer-encoding'] !== undefined;
  const options: Dispatcher.DispatchOptions = {
    method: request.method as Dispatcher.HttpMethod,
    path: request.url ?? '/',
    headers: requestHeaders(request.rawHeaders, request.headers.connection),
    body: hasBody ? request : null,
  };
  let control: Dispatcher.DispatchController | undefined;
  response.on('close', () => {
    if (!response.writableFinished) control?.abort(new Error('client went away'));
  });
  response.on('drain', () => control?.resume());
  pool.dispatch(options, {
    onRequestStart(controller) {
      control = controller;
    },
    onResponseStart(controller, statusCode, headers) {
      if (statusCode < 200) return; // 1xx: informational, not forwarded here
      control = controller;
      response.writeHead(statusCode, responseHeaders(headers));
    },
    onResponseData(controller, chunk) {
      if (!response.write(chunk)) controller.pause();
    },
    onResponseEnd() {
      response.end();
    },
    onResponseError(_controller, error) {
      if (response.headersSent) {
        response.destroy(error);
        return;
      }
      const code = (error as Error & { code?: string }).code ?? '';
      const timedOut = code.includes('TIMEOUT');
      response.writeHead(timedOut ? 504 : 502, { 'content-type': 'text/plain; charset=utf-8' });
      response.end(timedOut ? 'Gateway timeout.' : 'Bad gateway.');
    },
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(values.port), '127.0.0.1', () => announceReady(server.address()));
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void pool.destroy().finally(() => process.exit(0));
});
