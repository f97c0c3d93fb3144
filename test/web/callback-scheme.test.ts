import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { authorizePath, startWeb } from './support.ts';
import type { WebWorld } from './support.ts';

describe('RFC 5849 §2.2 the redirect to a callback with a custom scheme', () => {
  let world: WebWorld;
  before(async () => {
    world = await startWeb();
    await world.owner('carol');
  });
  after(() => world.close());

  it("lets the consent form's answer redirect to the app's registered custom scheme", async () => {
    const client = await world.client({ callbacks: ['com.example.app:/oauth/done'] });
    const browser = world.browser();
    await browser.signIn('carol');
    const page = await browser.get(
      authorizePath(await world.temporary(client, 'com.example.app:/oauth/done')),
    );
    assert.equal(page.statusCode, 200);
    const policy = String(page.headers['content-security-policy']);
    assert.match(policy, /form-action 'self' http: https: com\.example\.app:(;|$)/);
    assert.match(policy, /frame-ancestors 'none'/);
  });

  it('adds no scheme to the policy for an http or https callback', async () => {
    const client = await world.client();
    const browser = world.browser();
    await browser.signIn('carol');
    const page = await browser.get(authorizePath(await world.temporary(client)));
    assert.match(
      String(page.headers['content-security-policy']),
      /form-action 'self' http: https:(;|$)/,
    );
  });
});
