// A plain node:http API protected by Latchkey's helper on the same store as the Latchkey
// server (run `npm start` beside it). Run: npx node --conditions=source examples/node-http-api.ts
import http from 'node:http';
import { createNodeVerifier, createProvider, openStore } from 'latchkey';

const store = await openStore(process.env.LATCHKEY_DATABASE ?? './data/latchkey.db');
const verify = createNodeVerifier({ provider: createProvider({ store }) });

http
  .createServer(async (request, response) => {
    const verified = await verify(request, response); // on failure it has answered already
    if (verified === undefined) return;
    response.setHeader('content-type', 'application/json');
    response.end(
      JSON.stringify({
        client: verified.caller.client.key,
        owner: verified.caller.owner?.subject ?? null,
        scope: verified.caller.scope,
        form: Object.fromEntries(new URLSearchParams(verified.body ?? '')),
      }),
    );
  })
  .listen(3000, '127.0.0.1');
