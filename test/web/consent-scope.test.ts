// The owner may grant less than the client asked for, never more (docs/decisions.md, "Scope
// and lifetime"): each requested scope is a ticked box on the consent page, and the token
// carries exactly what stayed ticked.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  processTokenCredentialsResponse,
  requestTokenCredentials,
  createSigningFetch,
} from '../../src/client/index.ts';
import { authorizePath, BASE, injectFetch, startWeb } from './support.ts';
import type { WebWorld } from './support.ts';

describe('RFC 5849 §2.2 consent: the owner unticks requested scopes', () => {
  let world: WebWorld;
  before(async () => {
    world = await startWeb();
    await world.owner('alice');
  });
  after(() => world.close());

  /** Runs the flow with `answer` posted on the consent page; returns /api/me's scope. */
  async function grantedScope(requested: string | undefined, answer: URLSearchParams) {
    const client = await world.client();
    const temporary = await world.temporary(client, 'https://printer.example/callback', requested);
    const browser = world.browser();
    await browser.signIn('alice');
    const page = await browser.get(authorizePath(temporary));
    answer.set('oauth_token', temporary.token);
    answer.set('decision', 'allow');
    const allowed = await browser.post('/oauth/authorize', answer, page);
    assert.equal(allowed.statusCode, 303);
    const verifier = new URL(String(allowed.headers.location)).searchParams.get('oauth_verifier')!;
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
    const me = (await (await api(`${BASE}/api/me`)).json()) as { scope: string };
    return { page: page.body, scope: me.scope };
  }

  it('offers each requested scope as a ticked box', async () => {
    const client = await world.client();
    const temporary = await world.temporary(client, 'oob', 'read write');
    const browser = world.browser();
    await browser.signIn('alice');
    const page = (await browser.get(authorizePath(temporary))).body;
    assert.match(page, /<input type="checkbox" name="scope" value="read" checked>/);
    assert.match(page, /<input type="checkbox" name="scope" value="write" checked>/);
  });

  it('gives a token with read only when the owner unticks write', async () => {
    const answer = new URLSearchParams([
      ['scope_offered', '1'],
      ['scope', 'read'],
    ]);
    assert.equal((await grantedScope('read write', answer)).scope, 'read');
  });

  it('never adds a scope the client did not ask for, even when the form is forged', async () => {
    const answer = new URLSearchParams([
      ['scope_offered', '1'],
      ['scope', 'read'],
      ['scope', 'write'],
    ]);
    assert.equal((await grantedScope('read', answer)).scope, 'read');
  });

  it('gives a token that only identifies the owner when every box is unticked', async () => {
    const answer = new URLSearchParams([['scope_offered', '1']]);
    assert.equal((await grantedScope('read write', answer)).scope, '');
  });

  it('keeps the requested scope when the answer offered no choice (no marker)', async () => {
    assert.equal((await grantedScope('read write', new URLSearchParams())).scope, 'read write');
  });
});
