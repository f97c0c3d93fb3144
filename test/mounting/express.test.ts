import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { latchkeyExpress } from '../../src/http/middleware/express.ts';
import type { ExpressLikeRequest } from '../../src/http/middleware/express.ts';
import { describeMountedVerifier } from './suite.ts';

describeMountedVerifier('Express middleware', async (provider) => {
  const app = express();
  const reply = (request: ExpressLikeRequest, response: express.Response) =>
    response.json({ caller: request.oauth, form: request.body ?? {} });
  app.use('/hello', latchkeyExpress({ provider }));
  app.all('/hello', reply);
  app.get('/open', latchkeyExpress({ provider, tokenRequired: false }), reply);
  app.get('/write', latchkeyExpress({ provider, scope: 'write' }), reply);
  app.post(
    '/hashed',
    latchkeyExpress({ provider, requireBodyHash: true }),
    (request: ExpressLikeRequest, response: express.Response) =>
      response.json({ caller: request.oauth, json: request.body }),
  );
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      server.close();
    },
  };
});
