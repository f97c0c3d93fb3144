// A Latchkey with forward-auth and the verification API on loopback, its credentials, and a
// plain HTTP helper that can choose the source address (for the trusted-edge rule).
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/http/app.ts';
import type { ForwardAuthOptions } from '../../src/http/edge/forward-auth.ts';
import { createProvider } from '../../src/provider/index.ts';
import type { Provider } from '../../src/provider/index.ts';
import { createSqliteStore } from '../../src/store/index.ts';
import type { Client, Store, TokenCredential } from '../../src/store/index.ts';

/** The rules the suites share: the gateway's own shape (gateway-rules.ts). */
export const EDGE_RULES = [
  { path: '/public/*', access: 'public' as const },
  { path: '/status', access: 'client' as const },
  { path: '/admin/*', scope: 'write' },
  { path: '/uploads/*', requireBodyHash: true },
];

export const VERIFY_TOKEN = 'service-credential-0123456789-abcdefghij';

export interface EdgeLatchkey {
  readonly base: string;
  readonly port: number;
  readonly provider: Provider;
  readonly app: FastifyInstance;
  readonly client: Client;
  readonly token: TokenCredential;
  close(): Promise<void>;
}

export async function startLatchkey(
  forwardAuth: ForwardAuthOptions = {},
  more: { host?: string } = {},
): Promise<EdgeLatchkey> {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-edge-'));
  const store: Store = await createSqliteStore({ path: join(dir, 'latchkey.db') });
  const provider = createProvider({ store });
  const app = await buildApp({
    provider,
    forwardAuth: { rules: EDGE_RULES, ...forwardAuth },
    verifyToken: VERIFY_TOKEN,
    maintenance: false,
  });
  await app.listen({ host: more.host ?? '127.0.0.1', port: 0 });
  const port = (app.server.address() as AddressInfo).port;
  const client = await provider.clients.register({ name: 'Edge test app' });
  const owner = await provider.owners.signInExternal({
    source: 'delegated',
    subject: 'user-42',
    name: 'Zoë Ådams',
  });
  const token = await provider.tokens.issue({
    clientKey: client.key,
    ownerId: owner.id,
    scope: 'read',
  });
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    provider,
    app,
    client,
    token,
    close: async () => {
      await app.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Answer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

/** One HTTP request, byte for byte as given (no URL normalization), from `localAddress`. */
export function ask(options: {
  port: number;
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  localAddress?: string;
}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port: options.port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: options.headers,
        localAddress: options.localAddress,
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}
