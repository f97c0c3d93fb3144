// GET /openapi.json declares, for each operation, the statuses it answers with. This drives
// every route the document describes through its error paths (signed out, a post without or
// with a forged CSRF token, an empty or wrong form, someone else's or an unknown app, an
// unsigned OAuth request) and the ways it succeeds, and compares each status sent with the
// statuses declared for that operation: a route that sends one its schema does not declare
// fails here.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { csrfToken, startWeb } from '../web/support.ts';
import type { WebWorld, Browser } from '../web/support.ts';

interface Operation {
  readonly responses?: Record<string, unknown>;
}
type Document = { readonly paths: Record<string, Record<string, Operation>> };

describe('GET /openapi.json: the statuses each route sends are the ones it declares', () => {
  let world: WebWorld;
  let document: Document;
  /** `METHOD /path/{param}` -> the statuses sent, and by which probe. */
  const sent = new Map<string, Map<number, string>>();
  before(async () => {
    world = await startWeb();
    document = (await world.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  });
  after(() => world.close());

  function record(operation: string, probe: string, response: LightMyRequestResponse): void {
    const statuses = sent.get(operation) ?? new Map<number, string>();
    if (!statuses.has(response.statusCode)) statuses.set(response.statusCode, probe);
    sent.set(operation, statuses);
  }

  /** The path with its parameters filled in. */
  function fill(path: string, key: string): string {
    return path.replace(/\{(\w+)\}/g, () => encodeURIComponent(key));
  }

  it('drives every page route signed out, signed in, with and without a CSRF token', async () => {
    const dev = await world.owner('dev');
    await world.owner('other');
    const { key } = await world.client({ developerId: dev.id });
    // One browser per account, signed in once (a sign-in costs a password hash); a fresh one
    // for the routes that change the session itself.
    const pool = new Map<string, Browser>();
    let fresh = false;
    const as = async (username?: string): Promise<Browser> => {
      if (username === undefined) return world.browser();
      const pooled = pool.get(username);
      if (pooled !== undefined && !fresh) return pooled;
      const browser = world.browser();
      assert.equal((await browser.signIn(username)).statusCode, 303);
      if (!fresh) pool.set(username, browser);
      return browser;
    };
    const pages = Object.entries(document.paths).filter(([path]) =>
      /^\/(signin|signout|developer|account|oauth\/authorize|docs|$)/.test(path),
    );
    assert.ok(pages.length >= 10, `page routes found: ${pages.map(([p]) => p).join(', ')}`);
    for (const [path, operations] of pages) {
      for (const method of Object.keys(operations)) {
        if (method !== 'get' && method !== 'post') continue;
        const name = `${method.toUpperCase()} ${path}`;
        fresh = path === '/signin' || path === '/signout';
        const browsers: Array<[string, string | undefined, string]> = [
          ['signed out', undefined, key],
          ['signed in', 'dev', key],
          ['another developer', 'other', key],
          ['unknown key', 'dev', 'no-such-app'],
        ];
        for (const [who, username, param] of browsers) {
          const url = fill(path, param);
          if (method === 'get') {
            record(name, `${who}: GET`, await (await as(username)).get(url));
            continue;
          }
          if (username === undefined) {
            record(name, `${who}: no CSRF token`, await world.browser().post(url, { x: '1' }));
            record(name, `${who}: forged CSRF`, await world.browser().post(url, { _csrf: 'x' }));
          }
          // A CSRF token of this browser's session, from a form it can open.
          const csrfOf = async (browser: Browser) =>
            csrfToken(
              (await browser.get(username === undefined ? '/signin' : '/developer/apps/new')).body,
            );
          const empty = await as(username);
          record(name, `${who}: empty form`, await empty.post(url, { _csrf: await csrfOf(empty) }));
          const browser = await as(username);
          const csrf = await csrfOf(browser);
          record(
            name,
            `${who}: wrong form`,
            await browser.post(url, {
              _csrf: csrf,
              name: '',
              website: 'not a url',
              callbacks: 'nope',
              username: 'dev',
              password: 'wrong password',
              oauth_token: 'unknown',
              decision: 'allow',
              client_key: 'no-such-app',
            }),
          );
        }
      }
    }
  });

  it('drives the signed OAuth routes with unsigned and half-signed requests', async () => {
    const oauth = Object.entries(document.paths).filter(([path]) =>
      /^\/(oauth\/(request_token|access_token|invalidate_token)|api\/me)$/.test(path),
    );
    assert.equal(oauth.length, 4);
    for (const [path, operations] of oauth) {
      for (const method of Object.keys(operations)) {
        if (method !== 'get' && method !== 'post') continue;
        const name = `${method.toUpperCase()} ${path}`;
        const METHOD = method.toUpperCase() as 'GET' | 'POST';
        record(name, 'unsigned', await world.app.inject({ method: METHOD, url: path }));
        record(
          name,
          'an unknown client',
          await world.app.inject({
            method: METHOD,
            url: path,
            headers: {
              authorization:
                'OAuth oauth_consumer_key="nope", oauth_signature_method="HMAC-SHA1", oauth_signature="x", oauth_timestamp="1", oauth_nonce="n", oauth_version="1.0"',
            },
          }),
        );
      }
    }
  });

  it('sends no status a route does not declare', () => {
    const undeclared: string[] = [];
    for (const [operation, statuses] of sent) {
      const [method, path] = operation.split(' ') as [string, string];
      const declared = Object.keys(document.paths[path]?.[method.toLowerCase()]?.responses ?? {});
      for (const [status, probe] of statuses) {
        if (!declared.includes(String(status))) {
          undeclared.push(
            `${operation} sent ${status} (${probe}); declares ${declared.join(', ')}`,
          );
        }
      }
    }
    assert.ok(sent.size >= 14, `operations driven: ${[...sent.keys()].join(', ')}`);
    assert.deepEqual(undeclared, []);
  });
});
