import Fastify from 'fastify';
import { latchkeyFastify } from '../../src/http/middleware/fastify.ts';
import { describeMountedVerifier } from './suite.ts';

describeMountedVerifier('Fastify plugin', async (provider) => {
  const app = Fastify();
  await app.register(latchkeyFastify, { provider });
  app.all('/hello', async (request) => ({ caller: request.oauth, form: request.body ?? {} }));
  app.get('/open', { config: { oauth: { tokenRequired: false } } }, async (request) => ({
    caller: request.oauth,
  }));
  app.get('/write', { config: { oauth: { scope: 'write' } } }, async (request) => ({
    caller: request.oauth,
  }));
  app.post('/hashed', { config: { oauth: { requireBodyHash: true } } }, async (request) => ({
    caller: request.oauth,
    json: request.body,
  }));
  app.get('/health', { config: { oauth: false } }, async () => 'ok');
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { url, close: () => app.close() };
});
