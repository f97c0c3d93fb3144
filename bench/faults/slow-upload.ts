/**
 * The slow-upload attack on the gateway, run by `npm run bench` beside the signed GETs of
 * the `gateway-slow-upload` scenario (bench/scenarios.ts): 140 POSTs whose bodies trickle a
 * byte a second, half unsigned on a public path, half signed on a token path, as the security
 * review sent them. They come from 70 loopback addresses (127.0.1.1 to 127.0.1.70, two each),
 * as an attacker with many addresses would, so the per-address bound alone does not stop them
 * and the gateway's other defences (docs/gateway.md, "Slow uploads") are what the GETs' latency
 * shows. Each body is announced at 1 MB, so none ends while the scenario is measured.
 */
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { signRequest } from '../../src/client/index.ts';
import type { SeededCredentials } from '../seed/seed-latchkey.ts';

/** The path the bench gateway declares public (bench/server-group.ts). */
export const PUBLIC_PREFIX = '/public';
export const SLOW_UPLOADS = 140;
const ADDRESSES = 70;
const ANNOUNCED_BYTES = 1_000_000;
const TRICKLE_MS = 1000;

export interface SlowUploads {
  /** Uploads whose connection is still open (neither answered nor closed). */
  open(): number;
  /** Ends every upload (its connection destroyed). */
  stop(): void;
}

export interface SlowUploadTarget {
  /** `127.0.0.1:PORT` of the gateway. */
  readonly host: string;
  readonly credentials: SeededCredentials;
}

/** Starts the uploads, resolving once every one has connected and sent its head. */
export async function startSlowUploads(target: SlowUploadTarget): Promise<SlowUploads> {
  const [hostname, port] = target.host.split(':') as [string, string];
  const sockets: Socket[] = [];
  const connected: Promise<void>[] = [];
  for (let i = 0; i < SLOW_UPLOADS; i++) {
    const signed = i % 2 === 1;
    const path = signed ? `/uploads/${i}` : `${PUBLIC_PREFIX}/uploads/${i}`;
    const head = [
      `POST ${path} HTTP/1.1`,
      `Host: ${target.host}`,
      'Content-Type: application/json',
      `Content-Length: ${ANNOUNCED_BYTES}`,
    ];
    if (signed) {
      const request = signRequest({
        method: 'POST',
        url: `http://${target.host}${path}`,
        headers: { 'content-type': 'application/json' },
        client: target.credentials.hmacClient,
        token: target.credentials.token,
      });
      head.push(`Authorization: ${request.headers['Authorization']}`);
    }
    const socket = connect({
      host: hostname,
      port: Number(port),
      localAddress: `127.0.1.${1 + (i % ADDRESSES)}`,
    });
    socket.on('error', () => socket.destroy());
    // Whatever the gateway answers is read and dropped; the connection's end is what counts.
    socket.resume();
    sockets.push(socket);
    connected.push(
      new Promise((resolve, reject) => {
        socket.once('connect', () => {
          socket.write(`${head.join('\r\n')}\r\n\r\n[`, () => resolve());
        });
        socket.once('error', reject);
      }),
    );
  }
  await Promise.all(connected);
  const trickle = setInterval(() => {
    for (const socket of sockets) if (!socket.destroyed) socket.write(' ');
  }, TRICKLE_MS);
  return {
    open: () => sockets.filter((socket) => !socket.destroyed && !socket.readableEnded).length,
    stop: () => {
      clearInterval(trickle);
      for (const socket of sockets) socket.destroy();
    },
  };
}
