/** The limit: a bare node:http hello world, the fastest an HTTP server on this core can be. */
import { createServer } from 'node:http';
import { announceReady, portArgument } from './ready.ts';

const body = Buffer.from('hello world');
const server = createServer((_request, response) => {
  response.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': body.length });
  response.end(body);
});
server.keepAliveTimeout = 60_000;
server.listen(portArgument(), '127.0.0.1', () => announceReady(server.address()));
