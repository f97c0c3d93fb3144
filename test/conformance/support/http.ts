/**
 * Sends one request over a real socket with node:http(s), with full control of the method,
 * the raw path, the Host header and the body (fetch forbids setting Host). The answer's
 * form body is parsed so tests can read `oauth_problem` and friends.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { parseFormUrlEncoded } from '../../../src/protocol/index.ts';

export interface RawRequest {
  readonly method: string;
  /** Absolute URL: where to connect, and the path and query sent as given. */
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>> | undefined;
  readonly body?: string | Uint8Array | undefined;
}

export interface RawResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  /** The body as form fields (last value wins); {} when it is not a form body. */
  readonly fields: Readonly<Record<string, string>>;
  /** The body as ordered form pairs; [] when it is not a form body. */
  readonly pairs: ReadonlyArray<readonly [string, string]>;
}

/** Sends the request; for https the test server's self-signed certificate is accepted. */
export function send(request: RawRequest): Promise<RawResponse> {
  const url = new URL(request.url);
  const https = url.protocol === 'https:';
  const requester = https ? httpsRequest : httpRequest;
  // The path as given, not as WHATWG URL re-encoded it (tests send odd bytes on purpose).
  const afterAuthority = request.url.replace(/^[a-z]+:\/\/[^/?#]*/i, '');
  const path = afterAuthority === '' ? '/' : afterAuthority.replace(/#.*$/, '');
  return new Promise((resolve, reject) => {
    const outgoing = requester(
      {
        method: request.method,
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port,
        path,
        headers: { ...request.headers },
        ...(https ? { rejectUnauthorized: false } : {}),
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let pairs: Array<readonly [string, string]> = [];
          if (/x-www-form-urlencoded/.test(response.headers['content-type'] ?? '')) {
            try {
              pairs = parseFormUrlEncoded(text);
            } catch {
              pairs = [];
            }
          }
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text,
            fields: Object.fromEntries(pairs),
            pairs,
          });
        });
      },
    );
    outgoing.on('error', reject);
    if (request.body !== undefined) outgoing.end(request.body);
    else outgoing.end();
  });
}
