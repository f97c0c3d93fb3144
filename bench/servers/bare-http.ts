/** The limit: a bare node:http hello world, the fastest an HTTP server on this core can be. */
import { createServer } from 'node:http';
import { announceReady, portArgument } from './ready.ts';

// A string, not a Buffer: node:http joins a string body to the header block and sends both
// in one write(); a Buffer body goes out as a second chunk (writev), about 15 % slower here,
// which made this "limit" slower than bare Fastify.
const body = 'hello world';
const server = createServer((_request, response) => {
  response.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': body.length });
  response.end(body);
});
server.keepAliveTimeout = 60_000;
server.listen(portArgument(), '127.0.0.1', () => announceReady(server.address()));
