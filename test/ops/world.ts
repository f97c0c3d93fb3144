// The whole server (buildApp with the pages) on a store the test chooses and with the app
// options it chooses (metrics, logger), shaped as test/web/support.ts's WebWorld so its
// Browser and connect() drive the flow through the real pages with app.inject.
import type { FastifyInstance } from 'fastify';
import {
  processTemporaryCredentialsResponse,
  requestTemporaryCredentials,
} from '../../src/client/index.ts';
import { buildApp } from '../../src/http/app.ts';
import type { BuildOptions } from '../../src/http/app.ts';
import { createProvider } from '../../src/provider/index.ts';
import { createSqliteStore } from '../../src/store/index.ts';
import type { Store } from '../../src/store/index.ts';
import { webPlugin } from '../../src/web/index.ts';
import { BASE, Browser, injectFetch, PASSWORD } from '../web/support.ts';
import type { WebWorld } from '../web/support.ts';

export interface OpsWorldOptions {
  /** In-memory SQLite when absent; closed with the world either way. */
  readonly store?: Store | undefined;
  readonly app?: Omit<BuildOptions, 'provider' | 'pages'> | undefined;
}

export async function startWorld(options: OpsWorldOptions = {}): Promise<WebWorld> {
  const store = options.store ?? createSqliteStore({ path: ':memory:' });
  const provider = createProvider({ store });
  const app: FastifyInstance = await buildApp({
    maintenance: false,
    ...options.app,
    provider,
    pages: webPlugin,
  });
  let owners = 0;
  return {
    app,
    provider,
    store,
    owner: (username = `owner${++owners}`) => provider.owners.create(username, PASSWORD),
    client: (registration = {}) =>
      provider.clients.register({
        name: 'Photo Printer',
        website: 'https://printer.example',
        callbacks: ['https://printer.example/callback'],
        ...registration,
      }),
    async temporary(client, callback = 'https://printer.example/callback') {
      const response = await requestTemporaryCredentials(`${BASE}/oauth/request_token`, {
        client: { key: client.key, secret: client.secret },
        callback,
        fetch: injectFetch(app),
      });
      return processTemporaryCredentialsResponse(response);
    },
    browser: (remoteAddress = '127.0.0.1') => new Browser(app, remoteAddress),
    async close() {
      await app.close();
      await store.close();
    },
  };
}

/** The value of one sample in a Prometheus text exposition, or undefined. */
export function sample(text: string, name: string, labels: Record<string, string> = {}) {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match === null || match[1] !== name) continue;
    const found = new Map(
      [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]),
    );
    if (Object.entries(labels).every(([key, value]) => found.get(key) === value)) {
      return Number(match[3]);
    }
  }
  return undefined;
}
