// The open redirect after sign-in, driven over a real socket as it was found: a signed-in
// browser sent to /signin?next=/.//evil.example/x was answered `Location: //evil.example/x`.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { webPlugin } from '../../src/web/index.ts';
import { startWorld } from '../conformance/support/world.ts';
import type { World } from '../conformance/support/world.ts';
import { csrfToken } from '../web/support.ts';

describe('Sign-in never redirects off the site (over a socket)', () => {
  let world: World;
  let cookie = '';
  before(async () => {
    world = await startWorld({ app: { pages: webPlugin } });
    await world.server.provider.owners.create('mallory', 'correct horse battery');
    // Sign in as a browser would: the form's CSRF token and cookie, then the post.
    const form = await fetch(`${world.url}/signin`);
    const jar = (response: Response) =>
      response.headers
        .getSetCookie()
        .map((line) => line.split(';')[0])
        .join('; ');
    cookie = jar(form);
    const signedIn = await fetch(`${world.url}/signin`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        username: 'mallory',
        password: 'correct horse battery',
        next: '/',
        _csrf: csrfToken(await form.text()),
      }),
    });
    assert.equal(signedIn.status, 303);
    cookie = jar(signedIn);
  });
  after(() => world.close());

  for (const next of [
    '/.//evil.example/x',
    '/..//evil.example/x',
    '/%2e//evil.example/x',
    '/./\t/evil.example/x',
  ]) {
    it(`answers GET /signin?next=${JSON.stringify(next)} with a Location on this site`, async () => {
      const response = await fetch(`${world.url}/signin?next=${encodeURIComponent(next)}`, {
        redirect: 'manual',
        headers: { cookie },
      });
      assert.equal(response.status, 303);
      const location = response.headers.get('location') ?? '';
      assert.ok(location.startsWith('/') && !location.startsWith('//'), location);
    });
  }
});
