/**
 * The web pages under test through app.inject(): the real app (buildApp with the pages
 * plugin) on an in-memory SQLite store, a cookie jar that behaves like a browser, and the
 * client SDK sending its signed requests through inject. No mocks: every request goes
 * through the same routes, hooks and provider as in production.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import {
  authorizationUrl,
  createSigningFetch,
  processTemporaryCredentialsResponse,
  processTokenCredentialsResponse,
  requestTemporaryCredentials,
  requestTokenCredentials,
} from '../../src/client/index.ts';
import type { ClientCredentials, TokenCredentials } from '../../src/client/index.ts';
import { buildApp } from '../../src/http/app.ts';
import type { BuildOptions, PagesContext } from '../../src/http/app.ts';
import { createProvider } from '../../src/provider/index.ts';
import type { ClientRegistration, PolicyOverrides, Provider } from '../../src/provider/index.ts';
import { createSqliteStore } from '../../src/store/index.ts';
import type { Client, Owner, Store } from '../../src/store/index.ts';
import { webPlugin } from '../../src/web/index.ts';
import type { WebOptions } from '../../src/web/index.ts';

export const BASE = 'http://127.0.0.1';
export const PASSWORD = 'correct horse battery';

export interface WebWorldOptions {
  readonly policy?: PolicyOverrides | undefined;
  readonly now?: (() => number) | undefined;
  /** Web options beyond what the app passes (sign-in limits, secure cookies). */
  readonly web?: Partial<Omit<WebOptions, 'provider'>> | undefined;
  /** The store (closed with the world); an in-memory SQLite one by default. */
  readonly store?: Store | undefined;
  /** The app's logger (none by default). */
  readonly logger?: BuildOptions['logger'];
  /** How long a sign-in lasts, as the app is told (the pages' default when absent). */
  readonly browserSessionLifetimeSeconds?: number | undefined;
}

export interface WebWorld {
  readonly app: FastifyInstance;
  readonly provider: Provider;
  /** The store under the provider, for checks of what was stored. */
  readonly store: Store;
  owner(username?: string): Promise<Owner>;
  client(registration?: Partial<ClientRegistration>): Promise<Client>;
  /** Temporary credentials from the real endpoint, signed by the client SDK. */
  temporary(client: Client, callback?: string, scope?: string): Promise<TokenCredentials>;
  /** A browser with its own cookie jar. */
  browser(remoteAddress?: string): Browser;
  close(): Promise<void>;
}

/** A fetch that sends through app.inject, so the client SDK talks to the app in-process. */
export function injectFetch(app: FastifyInstance): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input));
    const reply = await app.inject({
      method: (init?.method ?? 'GET') as 'GET',
      url: url.pathname + url.search,
      headers: { ...(init?.headers as Record<string, string>), host: url.host },
      ...(init?.body === undefined || init.body === null ? {} : { payload: init.body as string }),
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(reply.headers)) {
      for (const item of [value].flat()) if (item !== undefined) headers.append(name, String(item));
    }
    return new Response(reply.rawPayload, { status: reply.statusCode, headers });
  }) as typeof fetch;
}

export async function startWeb(options: WebWorldOptions = {}): Promise<WebWorld> {
  const store = options.store ?? createSqliteStore({ path: ':memory:' });
  const provider = createProvider({ store, policy: options.policy, now: options.now });
  const app = await buildApp({
    provider,
    maintenance: false,
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    browserSessionLifetimeSeconds: options.browserSessionLifetimeSeconds,
    pages: (instance, context: PagesContext) => webPlugin(instance, { ...context, ...options.web }),
  });
  let owners = 0;
  return {
    app,
    provider,
    store,
    owner: (username = `owner${++owners}`) => provider.owners.create(username, PASSWORD),
    async client(registration = {}) {
      const client = await provider.clients.register({
        name: 'Photo Printer',
        description: 'Prints the photos you choose.',
        website: 'https://printer.example',
        ...registration,
      });
      return client;
    },
    async temporary(client, callback = 'https://printer.example/callback', scope) {
      const credentials: ClientCredentials = { key: client.key, secret: client.secret };
      const response = await requestTemporaryCredentials(`${BASE}/oauth/request_token`, {
        client: credentials,
        callback,
        ...(scope === undefined ? {} : { scope }),
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

/** The path a person is sent to for these temporary credentials. */
export function authorizePath(temporary: TokenCredentials): string {
  const url = new URL(authorizationUrl(`${BASE}/oauth/authorize`, temporary));
  return url.pathname + url.search;
}

/** Cookies kept across requests, the way a browser keeps them for one site. */
export class Browser {
  readonly cookies = new Map<string, string>();
  readonly #app: FastifyInstance;
  readonly #remoteAddress: string;

  constructor(app: FastifyInstance, remoteAddress: string) {
    this.#app = app;
    this.#remoteAddress = remoteAddress;
  }

  async get(url: string): Promise<LightMyRequestResponse> {
    return this.#send('GET', url);
  }

  /** Posts a form; `_csrf` is taken from `page` unless the fields give one. */
  async post(
    url: string,
    fields: Record<string, string> | URLSearchParams,
    page?: LightMyRequestResponse,
  ) {
    const form = new URLSearchParams(fields);
    if (page !== undefined && !form.has('_csrf')) form.set('_csrf', csrfToken(page.body));
    return this.#send('POST', url, form.toString());
  }

  async signIn(username: string, password = PASSWORD, next = '/') {
    const page = await this.get(`/signin?next=${encodeURIComponent(next)}`);
    return this.post('/signin', { username, password, next }, page);
  }

  async #send(method: 'GET' | 'POST', url: string, payload?: string) {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await this.#app.inject({
      method,
      url,
      remoteAddress: this.#remoteAddress,
      headers: {
        host: '127.0.0.1',
        ...(cookie === '' ? {} : { cookie }),
        ...(payload === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      ...(payload === undefined ? {} : { payload }),
    });
    for (const set of response.cookies as Array<{
      name: string;
      value: string;
      maxAge?: number;
      expires?: Date;
    }>) {
      const gone =
        set.maxAge === 0 || (set.expires !== undefined && set.expires.getTime() <= Date.now());
      if (gone || set.value === '') this.cookies.delete(set.name);
      else this.cookies.set(set.name, set.value);
    }
    return response;
  }
}

export function csrfToken(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  if (match === null) throw new Error('no CSRF token on the page');
  return match[1]!;
}

/** Text content of the page without tags, whitespace collapsed: what a person reads. */
export function text(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * The whole §2 flow for a signed-in browser: temporary credentials, Allow on the consent
 * page, then the token request. Returns the token credentials and a signing fetch for them.
 */
export async function connect(world: WebWorld, browser: Browser, client: Client, lifetime = '') {
  const temporary = await world.temporary(client);
  const page = await browser.get(authorizePath(temporary));
  const allowed = await browser.post(
    '/oauth/authorize',
    { oauth_token: temporary.token, decision: 'allow', lifetime },
    page,
  );
  const verifier = new URL(String(allowed.headers.location)).searchParams.get('oauth_verifier');
  if (verifier === null)
    throw new Error(`Allow did not redirect with a verifier: ${allowed.statusCode}`);
  const credentials = { key: client.key, secret: client.secret };
  const token = await processTokenCredentialsResponse(
    await requestTokenCredentials(`${BASE}/oauth/access_token`, {
      client: credentials,
      temporary,
      verifier,
      fetch: injectFetch(world.app),
    }),
  );
  const api = createSigningFetch({ client: credentials, token, fetch: injectFetch(world.app) });
  return { token, api };
}
