/**
 * The second reference for the gateway: Fastify 5 with @fastify/http-proxy, configured as
 * Latchkey's gateway configures it (no request logging, the same undici timeouts), but with
 * no verification and no header rewriting. Between the bare proxy and this row is the
 * library's cost; between this row and the gateway is Latchkey's own (verification, identity
 * headers, the query filter).
 *
 * Usage: node bench/servers/fastify-proxy.ts --upstream URL [--port N]
 */
import httpProxy from '@fastify/http-proxy';
import Fastify from 'fastify';
import { parseArgs } from 'node:util';
import { announceReady } from './ready.ts';

const { values } = parseArgs({
  options: { upstream: { type: 'string' }, port: { type: 'string', default: '0' } },
});
if (values.upstream === undefined) throw new Error('--upstream URL is required');

const TIMEOUT_MS = 30_000;
const app = Fastify({ logger: false, keepAliveTimeout: 60_000 });
await app.register(httpProxy, {
  upstream: values.upstream,
  disableRequestLogging: true,
  undici: { connectTimeout: 5_000, headersTimeout: TIMEOUT_MS, bodyTimeout: TIMEOUT_MS },
});
await app.listen({ port: Number(values.port), host: '127.0.0.1' });
announceReady(app.server.address());
process.on('SIGTERM', () => {
  void app.close().finally(() => process.exit(0));
});
