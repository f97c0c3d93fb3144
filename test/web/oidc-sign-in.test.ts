// Sign-in through an OpenID Connect provider that is not answering properly (docs/identity.md):
// down, or answering garbage. The authorization page shows a clear 502 page, never a 500, and
// stores nothing. (The working provider is in test/browser/identity.test.ts.)
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { authorizePath, startWeb, text } from './support.ts';
import type { WebWorld } from './support.ts';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('Sign-in through an OpenID Connect provider that misbehaves', () => {
  const answers = new Map<string, (response: ServerResponse) => void>([
    [
      '/garbage/.well-known/openid-configuration',
      (r) => r.writeHead(200, { 'content-type': 'application/json' }).end('{not json'),
    ],
    [
      '/wrong/.well-known/openid-configuration',
      (r) =>
        r
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ issuer: 'https://someone-else.example' })),
    ],
    ['/error/.well-known/openid-configuration', (r) => r.writeHead(500).end('oops')],
  ]);
  const idp = createServer((request, response) => {
    const answer = answers.get(request.url ?? '');
    if (answer === undefined) response.writeHead(404).end();
    else answer(response);
  });
  let base: string;
  const worlds: WebWorld[] = [];
  before(async () => {
    base = await listen(idp);
  });
  after(async () => {
    for (const world of worlds) await world.close();
    idp.close();
  });

  for (const [label, path] of [
    ['answers garbage', '/garbage'],
    ['names another issuer', '/wrong'],
    ['fails with 500', '/error'],
    ['is not there (404)', '/missing'],
  ] as const) {
    it(`shows a 502 page and stores nothing when the provider ${label}`, async () => {
      const world = await startWeb({
        web: { identity: { source: 'oidc', issuer: `${base}${path}`, clientId: 'latchkey' } },
      });
      worlds.push(world);
      const temporary = await world.temporary(await world.client());
      const browser = world.browser();
      const page = await browser.get(authorizePath(temporary));
      assert.equal(page.statusCode, 502);
      assert.match(text(page.body), /The sign-in service is not answering properly/);
      assert.match(text(page.body), /Nothing was approved/);
      assert.equal(browser.cookies.has('latchkey_login'), false, 'no sign-in was started');
      const stored = await world.store.temporaryCredentials.find(temporary.token);
      assert.equal(stored?.state, 'issued');
    });
  }
});
