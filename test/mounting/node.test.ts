import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNodeVerifier } from '../../src/http/middleware/node.ts';
import { describeMountedVerifier } from './suite.ts';

describeMountedVerifier('node:http helper', async (provider) => {
  const verifiers = {
    '/hello': createNodeVerifier({ provider }),
    '/open': createNodeVerifier({ provider, tokenRequired: false }),
    '/write': createNodeVerifier({ provider, scope: 'write' }),
    '/hashed': createNodeVerifier({ provider, requireBodyHash: true }),
  };
  const server = http.createServer(async (request, response) => {
    const path = (request.url ?? '/').split('?')[0] as keyof typeof verifiers;
    const verify = verifiers[path];
    if (verify === undefined) return void response.writeHead(404).end();
    const verified = await verify(request, response);
    if (verified === undefined) return;
    const form = Object.fromEntries(new URLSearchParams(verified.body ?? ''));
    const json = verified.rawBody === undefined ? undefined : JSON.parse(String(verified.rawBody));
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ caller: verified.caller, form, json }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      server.close();
    },
  };
});
