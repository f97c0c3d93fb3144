/** A bare Fastify 5 hello world: the framework's own cost, which Latchkey pays too. */
import Fastify from 'fastify';
import { announceReady, portArgument } from './ready.ts';

const app = Fastify({ logger: false, keepAliveTimeout: 60_000 });
app.all('/*', async () => 'hello world');
await app.listen({ port: portArgument(), host: '127.0.0.1' });
announceReady(app.server.address());
