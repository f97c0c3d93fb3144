// A team's own Fastify API, protected by Latchkey's plugin on the same store as the Latchkey
// server (run `npm start` beside it). Run: npx node --conditions=source examples/fastify-api.ts
import Fastify from 'fastify';
import { createProvider, latchkeyFastify, openStore } from 'latchkey';

const store = await openStore(process.env.LATCHKEY_DATABASE ?? './data/latchkey.db');
const provider = createProvider({ store });
const app = Fastify({ logger: true });

// Every route registered after this is protected; request.oauth is the caller.
await app.register(latchkeyFastify, { provider });

app.get('/photos', async (request) => ({
  owner: request.oauth?.owner?.subject,
  photos: ['vacation.jpg'],
}));

// A route that needs the `write` scope; form bodies are verified and parsed.
app.post('/photos', { config: { oauth: { scope: 'write' } } }, async (request) => ({
  saved: request.body,
}));

// A request signed by the client alone (no token) is enough here.
app.get('/status', { config: { oauth: { tokenRequired: false } } }, async (request) => ({
  client: request.oauth?.client.name,
}));

// Public: no verification.
app.get('/health', { config: { oauth: false } }, async () => 'ok');

app.addHook('onClose', () => store.close());
await app.listen({ host: '127.0.0.1', port: 3000 });
