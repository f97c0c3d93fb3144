// A recording upstream on loopback: it answers with what reached it, and counts requests,
// so a test can prove both what was forwarded and that nothing unverified was.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
}

export interface EchoUpstream {
  readonly url: string;
  readonly received: Received[];
  /** Milliseconds to wait before answering (to test timeouts). */
  delayMs: number;
  close(): Promise<void>;
}

export async function startEchoUpstream(): Promise<EchoUpstream> {
  const received: Received[] = [];
  const upstream: EchoUpstream = {
    url: '',
    received,
    delayMs: 0,
    close: async () => {
      server.closeAllConnections();
      server.close();
    },
  };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const record = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks),
      };
      received.push(record);
      setTimeout(() => {
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify({ ...record, body: record.body.toString('base64') }));
      }, upstream.delayMs);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  (upstream as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return upstream;
}
