/**
 * A real Latchkey server for tests: the SQLite store on a file, the provider, and the HTTP
 * app from src/http/app.ts listening on 127.0.0.1 on a free port. No mocks: tests talk to it
 * over real HTTP. Pass `path` to reopen the same database file (a restart); without it a
 * fresh temporary file is used and removed on close.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/http/app.ts';
import type { BuildOptions } from '../../src/http/app.ts';
import { createProvider } from '../../src/provider/index.ts';
import type { PolicyOverrides, Provider } from '../../src/provider/index.ts';
import { createSqliteStore } from '../../src/store/index.ts';
import type { Store } from '../../src/store/index.ts';
import type { Keyring } from '../../src/store/sealing.ts';

export interface TestServerOptions {
  /** The database file; a fresh temporary one when absent. */
  readonly path?: string | undefined;
  readonly policy?: PolicyOverrides | undefined;
  /** The provider's clock (milliseconds), for expiry tests without waiting. */
  readonly now?: (() => number) | undefined;
  /** The provider's monotonic clock (see ProviderOptions.monotonicNow). */
  readonly monotonicNow?: (() => number) | undefined;
  /** Further buildApp options (tls, trustProxy, insecureHttp, bodyLimit, pages…). */
  readonly app?: Omit<BuildOptions, 'provider'> | undefined;
  /** Interface to listen on; 127.0.0.1 by default. */
  readonly host?: string | undefined;
  /** Port to listen on (a restart keeps its port, so signed URLs stay valid); free one by default. */
  readonly port?: number | undefined;
  /** The keys sealing secrets at rest; secrets in clear without. */
  readonly keyring?: Keyring | undefined;
}

export interface TestServer {
  /** `http://127.0.0.1:PORT` (or https under TLS), no trailing slash. */
  readonly url: string;
  readonly port: number;
  /** The database file, for a restart on the same data. */
  readonly path: string;
  readonly provider: Provider;
  readonly store: Store;
  readonly app: FastifyInstance;
  /** Stops the server, closes the store, and removes a temporary database. */
  close(): Promise<void>;
}

export async function startServer(options: TestServerOptions = {}): Promise<TestServer> {
  const directory =
    options.path === undefined ? mkdtempSync(join(tmpdir(), 'latchkey-test-')) : undefined;
  const path = options.path ?? join(directory!, 'latchkey.db');
  const store = createSqliteStore({ path, keyring: options.keyring });
  const provider = createProvider({
    store,
    policy: options.policy,
    now: options.now,
    monotonicNow: options.monotonicNow,
  });
  const app = await buildApp({ maintenance: false, ...options.app, provider });
  const host = options.host ?? '127.0.0.1';
  await app.listen({ host, port: options.port ?? 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  const scheme = options.app?.tls === undefined ? 'http' : 'https';
  const urlHost = host.includes(':') ? `[${host}]` : host;
  let closed = false;
  return {
    url: `${scheme}://${urlHost}:${address.port}`,
    port: address.port,
    path,
    provider,
    store,
    app,
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
      await store.close();
      if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
    },
  };
}
