/**
 * The gateway's way to the upstream: one undici Pool for its origin, a request sent with the
 * headers the gateway decided on (undici's `dispatch`, the API with no stream object per
 * answer), and the answer written to the response as it arrives, with backpressure. Once
 * the upstream answers, the reply is Fastify's no more (hijacked), yet its onResponse hooks
 * still run on the response's finish: one access line, the metrics. A refused or failed
 * connection is a 502, a connection or answer that does not come in time a 504, each with a
 * plain-text body (docs/gateway.md).
 *
 * Two pools: a request whose body is already in (none, a form, a body read for its hash) holds
 * an upstream connection only while the upstream works, but one whose body streams through
 * holds it while the client sends, which a client can make last. So streamed bodies get a
 * pool of their own: clients trickling uploads can fill that one, never the connections every
 * other request needs (the gateway bounds how long and how many per address, gateway.ts).
 * Reading every body before opening the upstream request would free the pool too, but it
 * would put whole uploads in memory and end streaming of bodies past the body limit.
 *
 * Not @fastify/http-proxy / @fastify/reply-from: their URLs parsed per request, headers copied
 * twice, retry wrapper and Readable per answer piped through the reply cost a quarter to a
 * third more instructions per request (bench/instructions.ts --servers gateway).
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Pool } from 'undici';
import type { Dispatcher } from 'undici';

/**
 * Connection-specific fields (RFC 9110 §7.6.1), never forwarded in either direction; `host`
 * is the upstream's own on the way there. `expect` too: Node has already answered
 * `100-continue` to the client, and undici refuses to send it.
 */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'expect',
]);

/** Any character a header value cannot carry (RFC 9110 §5.5): dropped from the upstream's. */
const INVALID_VALUE = /[^\t\x20-\x7E\x80-\xFF]/g;

export type UpstreamHeaders = Record<string, string | string[]>;

export interface UpstreamSettings {
  readonly connectTimeoutMs: number;
  readonly responseTimeoutMs: number;
}

export interface Upstream {
  /** The `Host` header the upstream is sent. */
  readonly host: string;
  /**
   * Sends the request (`target` is the path and query to request, sent byte for byte) and
   * answers `reply` with the upstream's answer, streamed.
   */
  forward(
    request: FastifyRequest,
    reply: FastifyReply,
    target: string,
    headers: UpstreamHeaders,
    body: Readable | Buffer | string | null,
    /** Aborted: the upstream request ends at once (its connection is not reused). */
    signal?: AbortSignal,
  ): void;
  /** Closes the pool once the requests under way are answered. */
  close(): Promise<void>;
}

/** The names a `Connection` header lists (RFC 9110 §7.6.1), lower case; none when absent. */
export function connectionOptions(value: string | string[] | undefined): readonly string[] {
  if (value === undefined) return [];
  const joined = Array.isArray(value) ? value.join(',') : value;
  return joined
    .toLowerCase()
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

/** True for a field that only concerns one connection and so is never forwarded. */
export function isHopByHop(name: string, listed: readonly string[]): boolean {
  return HOP_BY_HOP.has(name) || (listed.length > 0 && listed.includes(name));
}

function answerUpstreamError(reply: FastifyReply, error: Error & { code?: string }): void {
  const timedOut = /TIMEOUT/i.test(error.code ?? '');
  reply
    .code(timedOut ? 504 : 502)
    .header('content-type', 'text/plain; charset=utf-8')
    .send(
      timedOut
        ? 'Gateway timeout: the upstream API did not answer in time.'
        : 'Bad gateway: the upstream API could not be reached.',
    );
}

/** The upstream's answer headers, less the connection-specific ones. */
function forwardedAnswerHeaders(
  request: FastifyRequest,
  headers: IncomingHttpHeaders,
): OutgoingHttpHeaders {
  const listed = connectionOptions(headers.connection);
  const out: OutgoingHttpHeaders = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || isHopByHop(name, listed)) continue;
    // An upstream answer with a character a header cannot carry would make Node throw while
    // writing the head: the character is dropped instead.
    out[name] =
      typeof value === 'string'
        ? value.replace(INVALID_VALUE, '')
        : value.map((item) => item.replace(INVALID_VALUE, ''));
  }
  // An HTTP/1.1 connection whose request body was not read to its end cannot carry another
  // request (the rest of the body would be read as one).
  if (!request.raw.complete) out['connection'] = 'close';
  return out;
}

export function createUpstream(url: string, settings: UpstreamSettings): Upstream {
  const origin = new URL(url);
  // As many connections as reply-from's default, one request at a time on each: a pipelined
  // request would wait behind a slow answer to another client.
  const poolOptions: Pool.Options = {
    connections: 128,
    pipelining: 1,
    connectTimeout: settings.connectTimeoutMs,
    headersTimeout: settings.responseTimeoutMs,
    bodyTimeout: settings.responseTimeoutMs,
  };
  const pool = new Pool(origin.origin, poolOptions);
  const uploads = new Pool(origin.origin, poolOptions);
  return {
    host: origin.host,
    forward(request, reply, target, headers, body, signal) {
      // Sent exactly as given: the path is the one the rules matched (path.ts makes it
      // sendable as it is), and re-parsing it here would let the upstream see another.
      const path = target;
      const response = reply.raw;
      let control: Dispatcher.DispatchController | undefined;
      let started = false;
      // The client went away: the upstream's answer is no longer read.
      const abandon = (): void => {
        if (!response.writableFinished) control?.abort(new Error('The client went away.'));
      };
      response.once('close', abandon);
      const streamed = body !== null && typeof body !== 'string' && !Buffer.isBuffer(body);
      signal?.addEventListener('abort', () => control?.abort(signal.reason), { once: true });
      (streamed ? uploads : pool).dispatch(
        { method: request.method as Dispatcher.HttpMethod, path, headers, body },
        {
          onRequestStart(controller) {
            control = controller;
            if (signal?.aborted === true) controller.abort(signal.reason);
          },
          onResponseStart(controller, statusCode, answerHeaders) {
            if (statusCode < 200) return; // informational (1xx): not forwarded
            if (statusCode > 599) {
              controller.abort(new Error(`The upstream answered status ${statusCode}.`));
              return;
            }
            started = true;
            // Written straight to the response, as it streams (the access log and metrics
            // still see it: Fastify's onResponse hooks run on the response's finish).
            reply.hijack();
            response.on('drain', () => control?.resume());
            response.writeHead(
              statusCode,
              forwardedAnswerHeaders(request, answerHeaders as IncomingHttpHeaders),
            );
          },
          onResponseData(controller, chunk) {
            if (!response.write(chunk)) controller.pause();
          },
          onResponseEnd() {
            response.end();
          },
          onResponseError(_controller, error) {
            if (started) {
              response.destroy(error);
              return;
            }
            response.removeListener('close', abandon);
            // The client went away first, or the gateway already answered (a body too slow):
            // no one to answer.
            if (response.destroyed || reply.sent || signal?.aborted === true) return;
            request.log.warn({ err: error }, 'response errored');
            answerUpstreamError(reply, error as Error & { code?: string });
          },
        },
      );
    },
    close: async () => {
      await Promise.all([pool.close(), uploads.close()]);
    },
  };
}
