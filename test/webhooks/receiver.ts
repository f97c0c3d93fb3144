// A real webhook receiver on 127.0.0.1 for the webhook suites: it checks every signature the
// way docs/webhooks.md tells a receiver to (HMAC-SHA256 over `<t>.<body>`, compared in
// constant time), and records what it got. It dedupes nothing: `accepted` counts every event
// id it answered with a 2xx, so a delivery sent twice shows as 2.
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  readonly deliveryId: string;
  readonly eventType: string;
  readonly body: { id: string; type: string; created: number; data: Record<string, unknown> };
  readonly signatureValid: boolean;
}

/** How the receiver answers: `accept` 200; `hold` never answers; any number: that status. */
export type Mode = 'accept' | 'hold' | number;

export interface Receiver {
  readonly url: string;
  readonly port: number;
  mode: Mode;
  /** Every request that reached it, in order. */
  readonly received: Received[];
  /** Event id → how many times it was answered with a 2xx. */
  readonly accepted: Map<string, number>;
  /** Requests being held (mode `hold`). */
  readonly held: Set<http.ServerResponse>;
  /** Stops listening and drops every connection (the receiver is down). */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

export function verifySignature(secret: string, header: string, body: string): boolean {
  const parts = new Map(
    header.split(',').map((part) => {
      const at = part.indexOf('=');
      return [part.slice(0, at), part.slice(at + 1)] as const;
    }),
  );
  const t = parts.get('t');
  const v1 = parts.get('v1');
  if (t === undefined || v1 === undefined || !/^\d+$/.test(t)) return false;
  // A replay of an old delivery: refused after five minutes.
  if (Math.abs(Date.now() / 1000 - Number(t)) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  const given = Buffer.from(v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export async function startReceiver(secrets: () => readonly string[]): Promise<Receiver> {
  const received: Received[] = [];
  const accepted = new Map<string, number>();
  const held = new Set<http.ServerResponse>();
  let server: http.Server;
  let port = 0;

  function handle(request: http.IncomingMessage, response: http.ServerResponse) {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const header = String(request.headers['latchkey-signature'] ?? '');
      const entry: Received = {
        deliveryId: String(request.headers['latchkey-delivery'] ?? ''),
        eventType: String(request.headers['latchkey-event'] ?? ''),
        body: JSON.parse(text) as Received['body'],
        signatureValid: secrets().some((secret) => verifySignature(secret, header, text)),
      };
      received.push(entry);
      const mode = receiver.mode;
      if (mode === 'hold') {
        held.add(response);
        response.on('close', () => held.delete(response));
        return;
      }
      const status = mode === 'accept' ? 200 : mode;
      if (status >= 200 && status < 300) {
        accepted.set(entry.body.id, (accepted.get(entry.body.id) ?? 0) + 1);
      }
      response.writeHead(status).end();
    });
  }

  async function listen(): Promise<void> {
    server = http.createServer(handle);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    port = (server.address() as AddressInfo).port;
  }

  async function stop(): Promise<void> {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  await listen();
  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    mode: 'accept',
    received,
    accepted,
    held,
    down: stop,
    up: listen,
    close: stop,
  };
  return receiver;
}

/** Repeats `check` until it returns true, for at most `ms` (a bound against hanging only). */
export async function eventually(
  ms: number,
  check: () => boolean | Promise<boolean>,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Not reached within ${ms} ms.`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Retries within milliseconds, so a test never waits on the production backoff. */
export const fastRetries = {
  allowPrivateAddresses: true,
  retryBaseMs: 20,
  retryMaxDelayMs: 100,
  pollIntervalMs: 20,
  timeoutMs: 2000,
  leaseMs: 10_000,
};
