// A real Latchkey with the admin API for the admin suites: the store given (a SQLite file or a
// PostgreSQL schema), the provider on a clock the test moves, the app listening on 127.0.0.1
// behind a trusted proxy (so each test speaks from an address of its own through
// X-Forwarded-For, and a flood from one address leaves the others alone), and one admin
// token of each role. Everything goes over real HTTP.
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/http/app.ts';
import type { BuildOptions } from '../../src/http/app.ts';
import { createProvider } from '../../src/provider/index.ts';
import type { AdminRole, Provider } from '../../src/provider/index.ts';
import type { ProviderOptions } from '../../src/provider/provider.ts';
import type { Store } from '../../src/store/index.ts';

export interface AdminWorld {
  readonly url: string;
  readonly app: FastifyInstance;
  readonly provider: Provider;
  readonly store: Store;
  /** A bearer token of each role, named after it (`operator`, `auditor`, `support`) and the suffix. */
  readonly tokens: Readonly<Record<AdminRole, string>>;
  /** The provider's clock (ms); move it forward with `advance`. */
  now(): number;
  advance(ms: number): void;
  close(): Promise<void>;
}

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The body as JSON (undefined when it is not). */
  readonly body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export async function startAdmin(
  store: Store,
  app: Omit<BuildOptions, 'provider'> = {},
  /** Added to the tokens' names: a second instance on the same store makes its own. */
  suffix = '',
  /** More of the provider's options (its sealing keys). */
  more: Omit<ProviderOptions, 'store' | 'now'> = {},
): Promise<AdminWorld> {
  let clock = Date.now();
  const provider = createProvider({ ...more, store, now: () => clock });
  const server = await buildApp({ maintenance: false, trustProxy: true, ...app, provider });
  await server.listen({ host: '127.0.0.1', port: 0 });
  const address = server.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  const tokens = {} as Record<AdminRole, string>;
  for (const role of ['operator', 'auditor', 'support'] as const) {
    tokens[role] = (await provider.admin.tokens.add(`${role}${suffix}`, role)).token;
  }
  return {
    url: `http://127.0.0.1:${address.port}`,
    app: server,
    provider,
    store,
    tokens,
    now: () => clock,
    advance(ms) {
      clock += ms;
    },
    async close() {
      await server.close();
      await store.close();
    },
  };
}

let addresses = 0;
/** An address no other caller of this process uses (TEST-NET-2, then TEST-NET-3). */
export function freshAddress(): string {
  addresses += 1;
  return addresses < 250 ? `198.51.100.${addresses}` : `203.0.113.${addresses - 249}`;
}

export interface CallOptions {
  /** A role's token, a literal Authorization value, or none. */
  readonly as?: AdminRole | { readonly authorization: string } | undefined;
  readonly body?: unknown;
  /** Sent as is (not JSON-encoded). */
  readonly raw?: string | undefined;
  readonly headers?: Record<string, string> | undefined;
  /** The caller's address (X-Forwarded-For); the world's default otherwise. */
  readonly from?: string | undefined;
}

const defaultAddress = freshAddress();

/** One admin API call over HTTP. */
export async function call(
  world: AdminWorld,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<Answer> {
  const headers: Record<string, string> = {
    'x-forwarded-for': options.from ?? defaultAddress,
    ...options.headers,
  };
  const as = options.as;
  if (typeof as === 'string') headers.authorization = `Bearer ${world.tokens[as]}`;
  else if (as !== undefined) headers.authorization = as.authorization;
  let payload: string | undefined = options.raw;
  if (options.body !== undefined) {
    payload = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${world.url}${path}`, {
    method,
    headers,
    ...(payload === undefined ? {} : { body: payload }),
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, text, body };
}

/** Resolves once the trail has stored an event of this name (the `audit` announcement). */
export function recorded(provider: Provider, name: string): Promise<{ detail: string }> {
  return new Promise((resolve) => {
    const listener = (entry: { event: string; detail: string }) => {
      if (entry.event !== name) return;
      provider.events.off('audit', listener);
      resolve(entry);
    };
    provider.events.on('audit', listener);
  });
}
