// docs/pages.md step 5 and docs/errors.md: a denied request is not discarded but kept,
// marked denied, until it expires; the client's exchange is refused with 401 user_refused
// (never token_revoked), and the consent page, opened again, answers 410.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { requestTokenCredentials } from '../../src/client/index.ts';
import { authorizePath, BASE, injectFetch, startWeb } from './support.ts';
import type { WebWorld } from './support.ts';

describe('a denied authorization request', () => {
  let world: WebWorld;
  before(async () => {
    world = await startWeb();
    await world.owner('alice');
  });
  after(() => world.close());

  it('is kept as denied: the exchange gets 401 user_refused, the page 410', async () => {
    const client = await world.client();
    const temporary = await world.temporary(client);
    const browser = world.browser();
    await browser.signIn('alice');
    const page = await browser.get(authorizePath(temporary));
    const denied = await browser.post(
      '/oauth/authorize',
      { oauth_token: temporary.token, decision: 'deny' },
      page,
    );
    assert.equal(denied.statusCode, 303);
    assert.equal((await world.store.temporaryCredentials.find(temporary.token))?.state, 'denied');
    assert.equal((await browser.get(authorizePath(temporary))).statusCode, 410);
    const answer = await requestTokenCredentials(`${BASE}/oauth/access_token`, {
      client: { key: client.key, secret: client.secret },
      temporary,
      verifier: 'any',
      fetch: injectFetch(world.app),
    });
    assert.equal(answer.status, 401);
    assert.equal(new URLSearchParams(await answer.text()).get('oauth_problem'), 'user_refused');
  });
});
