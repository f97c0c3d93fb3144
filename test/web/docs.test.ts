import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { problems } from '../../src/protocol/index.ts';
import { exampleCredentials } from '../../src/web/docs-example.ts';
import { startWeb, text } from './support.ts';
import type { WebWorld } from './support.ts';

const unescape = (html: string) =>
  html
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** The curl commands the page shows, as method, path and Authorization header. */
function curlRequests(html: string) {
  const requests = [];
  for (const [, block] of html.matchAll(/<pre class="code">(curl [\s\S]*?)<\/pre>/g)) {
    const command = unescape(block!);
    const url = new URL(/'(https?:[^']+)'/.exec(command)![1]!);
    requests.push({
      method: command.includes('-X POST') ? ('POST' as const) : ('GET' as const),
      path: url.pathname,
      authorization: /-H 'Authorization: ([^']+)'/.exec(command)![1]!,
    });
  }
  return requests;
}

describe('The documentation page (RFC 5849 §2 "the server must advertise three endpoint URIs")', () => {
  const at = 1_700_000_000_000; // the worked example's oauth_timestamp
  let world: WebWorld;
  let page: string;
  before(async () => {
    world = await startWeb({ now: () => at });
    page = (await world.browser().get('/docs')).body;
  });
  after(() => world.close());

  it('gives the three endpoint URIs in full', () => {
    const words = text(page);
    assert.match(words, /POST http:\/\/127\.0\.0\.1\/oauth\/request_token/);
    assert.match(words, /GET http:\/\/127\.0\.0\.1\/oauth\/authorize\?oauth_token=…/);
    assert.match(words, /POST http:\/\/127\.0\.0\.1\/oauth\/access_token/);
  });

  it('links the OpenAPI document and names the invalidation endpoint', async () => {
    assert.match(
      page,
      /<a href="http:\/\/127\.0\.0\.1\/openapi\.json"><code>http:\/\/127\.0\.0\.1\/openapi\.json<\/code><\/a>/,
    );
    assert.match(text(page), /POST http:\/\/127\.0\.0\.1\/oauth\/invalidate_token/);
    const linked = await world.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(linked.statusCode, 200);
  });

  it('explains ending a token and sessions, linked from the contents', () => {
    assert.match(page, /<a href="#sessions">Ending a token, and sessions<\/a>/);
    const words = text(page);
    for (const name of [
      'oauth_expires_in',
      'oauth_session_handle',
      'oauth_authorization_expires_in',
      'session_expired',
    ])
      assert.ok(words.includes(name), name);
  });

  it('explains LTI 1.1 launches and grades, linked from the contents', () => {
    assert.match(page, /<a href="#lti">LTI 1\.1 launches and grades<\/a>/);
    const words = text(page);
    assert.match(words, /basic-lti-launch-request/);
    assert.match(words, /lti_errormsg/);
    assert.match(words, /replaceResult , readResult and deleteResult/);
  });

  it('lists every signature method the server accepts', () => {
    for (const name of world.provider.policy.signatureMethods.names()) {
      assert.ok(page.includes(`<code>${name}</code>`), name);
    }
  });

  it('lists the whole error vocabulary with each status', () => {
    for (const [code, entry] of Object.entries(problems)) {
      assert.match(page, new RegExp(`<code>${code}</code></th><td>${entry.status}</td>`));
    }
  });

  it('shows a worked curl example for each step of the flow', () => {
    assert.deepEqual(
      curlRequests(page).map((r) => `${r.method} ${r.path}`),
      ['POST /oauth/request_token', 'POST /oauth/access_token', 'GET /api/me'],
    );
  });

  it('has worked examples this server really accepts, signature and all', async () => {
    const c = exampleCredentials;
    const owner = await world.owner('example-owner');
    await world.provider.clients.register({
      name: 'Example',
      key: c.clientKey,
      secret: c.clientSecret,
    });
    await world.store.temporaryCredentials.create({
      token: c.temporaryToken,
      secret: c.temporarySecret,
      clientKey: c.clientKey,
      callback: c.callback,
      requestedScope: 'read write',
      createdAt: at,
      expiresAt: at + 600_000,
    });
    await world.store.temporaryCredentials.authorize(
      c.temporaryToken,
      {
        ownerId: owner.id,
        verifier: world.store.secrets.verifierDigest(c.verifier),
        scope: 'read write',
        lifetime: null,
      },
      at,
    );
    await world.provider.tokens.issue({
      clientKey: c.clientKey,
      ownerId: owner.id,
      token: c.token,
      secret: c.tokenSecret,
    });
    for (const request of curlRequests(page)) {
      const reply = await world.app.inject({
        method: request.method,
        url: request.path,
        headers: { host: '127.0.0.1', authorization: request.authorization },
      });
      assert.equal(reply.statusCode, 200, `${request.path}: ${reply.body}`);
    }
  });
});
