/**
 * A Latchkey server in its own process, for the kill -9 test: the SQLite store on the given
 * file, the provider, buildApp, on 127.0.0.1. Usage:
 *   node test/support/kill-9-server.ts <database file> <owner id> [port]
 * Prints `{"port":N}` on one line once it listens. A test-only route, POST /test/approve
 * ?oauth_token=…, approves for the given owner through provider.authorization.approve (the
 * call the consent page's Allow makes) and answers the verifier as text.
 */
import { buildApp } from '../../src/http/app.ts';
import { createProvider } from '../../src/provider/index.ts';
import { createSqliteStore } from '../../src/store/index.ts';

const [path, ownerId, port = '0'] = process.argv.slice(2);
if (path === undefined || ownerId === undefined) {
  console.error('usage: kill-9-server.ts <database file> <owner id> [port]');
  process.exit(2);
}

const store = createSqliteStore({ path });
const provider = createProvider({ store });
const app = await buildApp({ provider });
app.post('/test/approve', async (request, reply) => {
  const token = (request.query as Record<string, string | undefined>)['oauth_token'] ?? '';
  const approval = await provider.authorization.approve(token, ownerId);
  return reply.type('text/plain').send(approval.verifier);
});
await app.listen({ host: '127.0.0.1', port: Number(port) });
const address = app.server.address();
console.log(JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 }));
