// A recording upstream on loopback: it answers with what reached it, and counts requests,
// so a test can prove both what was forwarded and that nothing unverified was.
import { EventEmitter, once } from 'node:events';
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
  /** Requests whose head has arrived, whether or not their body has. */
  readonly started: number;
  /** Requests whose connection closed before their body was in. */
  readonly abandoned: number;
  /** Emits `change` as those counts grow. */
  readonly events: EventEmitter;
  /** Resolves once `predicate` holds, checked now and after each event. */
  until(predicate: () => boolean): Promise<void>;
  close(): Promise<void>;
}

export async function startEchoUpstream(): Promise<EchoUpstream> {
  const received: Received[] = [];
  const upstream: EchoUpstream = {
    url: '',
    received,
    delayMs: 0,
    started: 0,
    abandoned: 0,
    events: new EventEmitter(),
    until: async (predicate) => {
      while (!predicate()) {
        await once(upstream.events, 'change');
      }
    },
    close: async () => {
      server.closeAllConnections();
      server.close();
    },
  };
  const counts = upstream as { started: number; abandoned: number };
  const server = http.createServer((request, response) => {
    counts.started += 1;
    upstream.events.emit('change');
    request.on('close', () => {
      if (request.complete) return;
      counts.abandoned += 1;
      upstream.events.emit('change');
    });
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
