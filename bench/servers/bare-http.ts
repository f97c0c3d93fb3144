/**
 * The limit: a bare node:http hello world, the fastest an HTTP server on this core can be.
 * `--read-bodies` (the gateway's upstream): a request with a body is answered once its body
 * is in, as an API that parses a JSON body does; the slow-upload attack (bench/faults/) needs
 * that to hold anything.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { announceReady, portArgument } from './ready.ts';

// A string, not a Buffer: node:http joins a string body to the header block and sends both
// in one write(); a Buffer body goes out as a second chunk (writev), about 15 % slower here,
// which made this "limit" slower than bare Fastify.
const body = 'hello world';
const answer = (_request: IncomingMessage, response: ServerResponse): void => {
  response.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': body.length });
  response.end(body);
};
// The limit's own handler is untouched by the option: the test is made once, here.
const server = createServer(
  process.argv.includes('--read-bodies')
    ? (request, response) => {
        const headers = request.headers;
        if (headers['content-length'] === undefined && headers['transfer-encoding'] === undefined) {
          answer(request, response);
          return;
        }
        request.on('end', () => answer(request, response));
        request.resume();
      }
    : answer,
);
server.keepAliveTimeout = 60_000;
server.listen(portArgument(), '127.0.0.1', () => announceReady(server.address()));
