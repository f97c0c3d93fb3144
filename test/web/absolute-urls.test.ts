// The absolute URLs the pages write (documentation, developer portal, the OpenAPI document's
// servers, the OpenID Connect redirect_uri) come from the configured public URL, or else the
// address the server listens on, like the endpoint advertisement: never from `Host`,
// `X-Forwarded-Host` or `Forwarded`, which a client chooses. Over real HTTP, since `Host` is
// what is forged.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import Fastify from 'fastify';
import {
  authorizationUrl,
  processTemporaryCredentialsResponse,
  requestTemporaryCredentials,
} from '../../src/client/index.ts';
import { createProvider } from '../../src/provider/index.ts';
import { createSqliteStore } from '../../src/store/index.ts';
import { webPlugin } from '../../src/web/index.ts';
import { startIdentityProvider } from '../browser/identity-provider.ts';
import type { TestIdentityProvider } from '../browser/identity-provider.ts';
import { send } from '../conformance/support/http.ts';
import type { RawResponse } from '../conformance/support/http.ts';
import { startServer } from '../support/server.ts';
import type { TestServer, TestServerOptions } from '../support/server.ts';
import { PASSWORD, csrfToken } from './support.ts';

const PUBLIC = 'https://auth.example.com';
const FORGED = { Host: 'evil.example' } as const;
const FORGED_BY_PROXY = {
  Host: 'evil.example',
  'X-Forwarded-Proto': 'https',
  'X-Forwarded-Host': 'evil.example',
} as const;

function startPages(app: TestServerOptions['app'] = {}): Promise<TestServer> {
  return startServer({ app: { ...app, pages: webPlugin } });
}

/** A browser over real HTTP that sends the headers it is given (a forged Host among them). */
class HttpBrowser {
  readonly #cookies = new Map<string, string>();
  readonly #server: TestServer;
  readonly #headers: Readonly<Record<string, string>>;

  constructor(server: TestServer, headers: Readonly<Record<string, string>>) {
    this.#server = server;
    this.#headers = headers;
  }

  get(path: string): Promise<RawResponse> {
    return this.#send('GET', path);
  }

  post(path: string, fields: Record<string, string>, page: RawResponse): Promise<RawResponse> {
    const form = new URLSearchParams({ ...fields, _csrf: csrfToken(page.text) });
    return this.#send('POST', path, form.toString());
  }

  async signIn(username: string): Promise<void> {
    const page = await this.get('/signin');
    const answer = await this.post('/signin', { username, password: PASSWORD, next: '/' }, page);
    assert.equal(answer.status, 303, answer.text);
  }

  async #send(method: string, path: string, body?: string): Promise<RawResponse> {
    const cookie = [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const answer = await send({
      method,
      url: this.#server.url + path,
      headers: {
        ...this.#headers,
        ...(cookie === '' ? {} : { cookie }),
        ...(body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      body,
    });
    for (const line of answer.headers['set-cookie'] ?? []) {
      const [pair = ''] = line.split(';');
      const equals = pair.indexOf('=');
      this.#cookies.set(pair.slice(0, equals), pair.slice(equals + 1));
    }
    return answer;
  }
}

/**
 * A signed-out owner sent to the authorization page of a new temporary credential, with a
 * forged Host: the page's answer (a 303 to the sign-in, checked).
 */
async function authorizeWithForgedHost(server: TestServer): Promise<RawResponse> {
  const client = await server.provider.clients.register({ name: 'Photo Printer' });
  const temporary = await processTemporaryCredentialsResponse(
    await requestTemporaryCredentials(`${server.url}/oauth/request_token`, {
      client: { key: client.key, secret: client.secret },
      callback: 'https://printer.example/callback',
    }),
  );
  const authorize = new URL(authorizationUrl(`${server.url}/oauth/authorize`, temporary));
  const page = await send({ method: 'GET', url: authorize.href, headers: FORGED });
  assert.equal(page.status, 303, page.text);
  return page;
}

async function assertUrlsOn(server: TestServer, headers: Record<string, string>, base: string) {
  const docs = await send({ method: 'GET', url: `${server.url}/docs`, headers });
  assert.equal(docs.status, 200);
  assert.ok(docs.text.includes(`${base}/oauth/request_token`), 'the docs name the endpoint');
  assert.doesNotMatch(docs.text, /evil\.example/);

  const openapi = await send({ method: 'GET', url: `${server.url}/openapi.json`, headers });
  assert.deepEqual((JSON.parse(openapi.text) as { servers: unknown }).servers, [{ url: base }]);

  await server.provider.owners.create('dev', PASSWORD);
  const browser = new HttpBrowser(server, headers);
  await browser.signIn('dev');
  const form = await browser.get('/developer/apps/new');
  const registered = await browser.post(
    '/developer/apps',
    { name: 'Weather Widget', description: 'Shows.', signature_methods: 'HMAC-SHA1' },
    form,
  );
  assert.equal(registered.status, 201, registered.text);
  assert.ok(registered.text.includes(`${base}/oauth/access_token`), 'the portal names it');
  assert.doesNotMatch(registered.text, /evil\.example/);
}

describe('Absolute URLs of the pages without a public URL: the address the server listens on', () => {
  let server: TestServer;
  before(async () => {
    server = await startPages();
  });
  after(() => server.close());

  it('ignores a forged Host in the docs, the OpenAPI servers and the developer portal', async () => {
    await assertUrlsOn(server, FORGED, server.url);
  });
});

describe('Absolute URLs of the pages behind a trusted proxy with a public URL', () => {
  let server: TestServer;
  before(async () => {
    server = await startPages({ trustProxy: true, publicUrl: PUBLIC });
  });
  after(() => server.close());

  it('name the public URL whatever Host and X-Forwarded-Host say', async () => {
    await assertUrlsOn(server, FORGED_BY_PROXY, PUBLIC);
  });
});

describe('Absolute URLs of the pages embedded without the app (webPlugin on its own)', () => {
  it('default to the address the server listens on, not Host', async () => {
    const store = createSqliteStore({ path: ':memory:' });
    const app = Fastify();
    await app.register(webPlugin, { provider: createProvider({ store }) });
    await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      const docs = await send({ method: 'GET', url: `${url}/docs`, headers: FORGED });
      assert.equal(docs.status, 200);
      assert.ok(docs.text.includes(`${url}/oauth/request_token`), 'the docs name the endpoint');
      assert.doesNotMatch(docs.text, /evil\.example/);
    } finally {
      await app.close();
      await store.close();
    }
  });
});

describe('The OpenID Connect redirect_uri with a forged Host (a real oidc-provider)', () => {
  let idp: TestIdentityProvider;
  let server: TestServer;
  before(async () => {
    idp = await startIdentityProvider({ 'ada-42': { name: 'Ada', email: 'ada@example.com' } });
    server = await startPages({
      identity: {
        source: 'oidc',
        issuer: idp.issuer,
        clientId: idp.clientId,
        clientSecret: idp.clientSecret,
      },
    });
    idp.register(`${server.url}/signin/oidc/callback`);
  });
  after(async () => {
    await server?.close();
    await idp?.close();
  });

  it('sends the owner to the provider with the listen address as redirect_uri, which it accepts', async () => {
    const page = await authorizeWithForgedHost(server);
    const atProvider = new URL(String(page.headers.location));
    assert.equal(atProvider.origin, idp.issuer);
    assert.equal(atProvider.searchParams.get('redirect_uri'), `${server.url}/signin/oidc/callback`);
    // The provider takes it (on to its login form), as it would not a redirect_uri on evil.example.
    const login = await send({ method: 'GET', url: atProvider.href });
    assert.equal(login.status, 303, login.text);
    assert.match(String(login.headers.location), /\/interaction\//);
  });
});

describe("The login app's redirect_to with a forged Host (delegated sign-in)", () => {
  const adminToken = 'an-admin-token-of-at-least-thirty-two-characters';
  let server: TestServer;
  before(async () => {
    server = await startPages({
      identity: { source: 'delegated', loginUrl: 'https://login.example/login', adminToken },
    });
  });
  after(() => server.close());

  it("is on the listen address whatever the browser's and the login app's Host said", async () => {
    const page = await authorizeWithForgedHost(server);
    const challenge = new URL(String(page.headers.location)).searchParams.get('login_challenge');
    const accepted = await send({
      method: 'POST',
      url: `${server.url}/admin/login/accept`,
      headers: {
        ...FORGED,
        authorization: `Bearer ${adminToken}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ login_challenge: challenge, subject: 'ada-42', name: 'Ada' }),
    });
    assert.equal(accepted.status, 200, accepted.text);
    const to = new URL((JSON.parse(accepted.text) as { redirect_to: string }).redirect_to);
    assert.equal(`${to.origin}${to.pathname}`, `${server.url}/signin/delegated/callback`);
  });
});
