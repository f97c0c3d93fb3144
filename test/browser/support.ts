/**
 * The browser suites' world: a real Latchkey server (SQLite file, provider, app with the
 * pages) listening on 127.0.0.1, a client's callback server on loopback, and Debian's
 * Chromium driven by playwright-core. Never a downloaded browser: without /usr/bin/chromium
 * the suites skip with the reason (and fail under CI).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import {
  authorizationUrl,
  createSigningFetch,
  processTemporaryCredentialsResponse,
  processTokenCredentialsResponse,
  requestTemporaryCredentials,
  requestTokenCredentials,
} from '../../src/client/index.ts';
import type { ClientCredentials, TokenCredentials } from '../../src/client/index.ts';
import { webPlugin } from '../../src/web/index.ts';
import { requirement } from '../support/requirements.ts';
import { startServer } from '../support/server.ts';
import type { TestServer } from '../support/server.ts';
import type { BuildOptions } from '../../src/http/app.ts';

export const CHROMIUM = '/usr/bin/chromium';
export const PASSWORD = 'correct horse battery';

/** `skip` for a browser suite: false when Chromium is installed, else the reason. */
export const needsChromium = requirement(
  'chromium',
  existsSync(CHROMIUM) ? undefined : `${CHROMIUM} not found (run .ci/install-browser.sh)`,
);

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * Screenshots go to docs/images when LATCHKEY_SCREENSHOTS=1 (to refresh the pictures in the
 * docs), and to a temporary folder otherwise, so a test run leaves the tree untouched.
 */
const screenshotDir =
  process.env.LATCHKEY_SCREENSHOTS === '1'
    ? new URL('../../docs/images/', import.meta.url).pathname
    : mkdtempSync(join(tmpdir(), 'latchkey-screens-'));
mkdirSync(screenshotDir, { recursive: true });

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: true });
}

/** The callback a client runs on loopback: records every request it gets. */
export interface CallbackServer {
  readonly url: string;
  readonly received: URL[];
  /** Other pages this loopback server serves, by path (another site's pages, for attacks). */
  readonly pages: Map<string, string>;
  /** The same server under the name `localhost`: a different site from 127.0.0.1. */
  readonly otherSite: string;
  close(): Promise<void>;
}

export async function startCallbackServer(): Promise<CallbackServer> {
  const received: URL[] = [];
  const pages = new Map<string, string>();
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/callback') received.push(url);
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(
      pages.get(url.pathname) ??
        '<!doctype html><title>Client app</title><h1>Back in the client app</h1>',
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return {
    url: `http://127.0.0.1:${address.port}/callback`,
    received,
    pages,
    otherSite: `http://localhost:${address.port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** One browser test world: server, callback server, Chromium, and every document response seen. */
export interface BrowserWorld {
  readonly server: TestServer;
  readonly callback: CallbackServer;
  readonly browser: Browser;
  /** Every HTML document Latchkey served to the browser, for the header checks. */
  readonly documents: Response[];
  context(options?: { readonly width?: number }): Promise<{
    context: BrowserContext;
    page: Page;
    /** Console messages of this page that report a Content-Security-Policy violation. */
    cspViolations: string[];
  }>;
  close(): Promise<void>;
}

export async function startBrowserWorld(
  options: {
    readonly app?: Omit<BuildOptions, 'provider' | 'pages'>;
    /** The server's clock (a TestClock's `now`), for tests that move time instead of waiting. */
    readonly now?: () => number;
  } = {},
): Promise<BrowserWorld> {
  const server = await startServer({ app: { ...options.app, pages: webPlugin }, now: options.now });
  const callback = await startCallbackServer();
  const browser = await launchChromium();
  const documents: Response[] = [];
  const contexts: BrowserContext[] = [];
  return {
    server,
    callback,
    browser,
    documents,
    async context(options = {}) {
      const context = await browser.newContext({
        viewport: { width: options.width ?? 1024, height: 800 },
        deviceScaleFactor: 1,
      });
      contexts.push(context);
      const page = await context.newPage();
      page.on('response', (response) => {
        if (
          response.request().resourceType() === 'document' &&
          response.url().startsWith(server.url)
        ) {
          documents.push(response);
        }
      });
      const cspViolations: string[] = [];
      page.on('console', (message) => {
        if (/Content Security Policy|Refused to/i.test(message.text())) {
          cspViolations.push(message.text());
        }
      });
      return { context, page, cspViolations };
    },
    async close() {
      for (const context of contexts) await context.close();
      await browser.close();
      await callback.close();
      await server.close();
    },
  };
}

/** A client of the server, driving the flow with our client SDK over real HTTP. */
export class FlowClient {
  readonly credentials: ClientCredentials;
  readonly #server: TestServer;
  temporary: TokenCredentials | undefined;

  constructor(server: TestServer, credentials: ClientCredentials) {
    this.#server = server;
    this.credentials = credentials;
  }

  /** §2.1, then the URL to send the person's browser to (§2.2). */
  async start(callback: string, scope?: string): Promise<string> {
    const response = await requestTemporaryCredentials(`${this.#server.url}/oauth/request_token`, {
      client: this.credentials,
      callback,
      ...(scope === undefined ? {} : { scope }),
    });
    this.temporary = await processTemporaryCredentialsResponse(response);
    return authorizationUrl(`${this.#server.url}/oauth/authorize`, this.temporary);
  }

  /** §2.3, then a signing fetch with the token credentials. */
  async finish(verifier: string) {
    const token = await processTokenCredentialsResponse(
      await requestTokenCredentials(`${this.#server.url}/oauth/access_token`, {
        client: this.credentials,
        temporary: this.temporary!,
        verifier,
      }),
    );
    return createSigningFetch({ client: this.credentials, token });
  }

  /** The exchange's raw answer, for the paths where it must fail. */
  finishRaw(verifier: string): Promise<globalThis.Response> {
    return requestTokenCredentials(`${this.#server.url}/oauth/access_token`, {
      client: this.credentials,
      temporary: this.temporary!,
      verifier,
    });
  }
}

/** Signs in on whatever sign-in form the page shows, the way a person does. */
export async function signIn(page: Page, username: string, password = PASSWORD): Promise<void> {
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForLoadState();
}

/** Every Latchkey document the browser got carried the framing and CSP headers. */
export async function assertEveryDocumentProtected(documents: readonly Response[]): Promise<void> {
  assert.ok(documents.length > 0, 'the suite loaded Latchkey pages');
  for (const response of documents) {
    const headers = await response.allHeaders();
    const csp = headers['content-security-policy'] ?? '';
    assert.match(csp, /frame-ancestors 'none'/, response.url());
    assert.match(csp, /script-src 'self'(;|$)/, response.url());
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/, response.url());
    assert.equal(headers['x-frame-options'], 'DENY', response.url());
  }
}
