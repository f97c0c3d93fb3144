import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { authorizePath, connect, csrfToken, startWeb } from './support.ts';
import type { WebWorld } from './support.ts';

/** Every page a person can meet, by name, rendered once. */
async function everyPage(world: WebWorld): Promise<Map<string, LightMyRequestResponse>> {
  const pages = new Map<string, LightMyRequestResponse>();
  const anonymous = world.browser();
  pages.set('home (signed out)', await anonymous.get('/'));
  pages.set('sign-in', await anonymous.get('/signin'));
  pages.set('docs', await anonymous.get('/docs'));
  pages.set('error 400 (link incomplete)', await anonymous.get('/oauth/authorize'));
  pages.set('error 404 (unknown request)', await anonymous.get('/oauth/authorize?oauth_token=x'));
  pages.set(
    'error 403 (CSRF)',
    await anonymous.post('/signin', { username: 'a', password: 'b', _csrf: 'x' }),
  );

  const owner = world.browser();
  await owner.signIn('alice');
  const client = await world.client({ name: 'Every Page App' });
  pages.set(
    'sign-in for a request',
    await anonymous.get(authorizePath(await world.temporary(client))),
  );
  const consentFor = await world.temporary(client);
  pages.set('consent', await owner.get(authorizePath(consentFor)));
  const oob = await world.temporary(client, 'oob');
  const oobPage = await owner.get(authorizePath(oob));
  pages.set(
    'verifier',
    await owner.post('/oauth/authorize', { oauth_token: oob.token, decision: 'allow' }, oobPage),
  );
  pages.set('error 410 (already answered)', await owner.get(authorizePath(oob)));
  const denied = await world.temporary(client, 'oob');
  const deniedPage = await owner.get(authorizePath(denied));
  pages.set(
    'denied',
    await owner.post(
      '/oauth/authorize',
      { oauth_token: denied.token, decision: 'deny' },
      deniedPage,
    ),
  );
  await connect(world, owner, client);
  pages.set('home (signed in)', await owner.get('/'));
  const apps = await owner.get('/account/apps');
  pages.set('connected apps', apps);
  const tokenId = /token_id=([^"]+)"/.exec(apps.body)![1]!;
  pages.set(
    'token revoke confirmation',
    await owner.get(`/account/apps/tokens/revoke?token_id=${tokenId}`),
  );
  pages.set('developer apps', await owner.get('/developer'));
  const form = await owner.get('/developer/apps/new');
  pages.set('register an app', form);
  const created = await owner.post(
    '/developer/apps',
    { name: 'Portal App', signature_methods: 'HMAC-SHA1' },
    form,
  );
  pages.set('app registered (secret once)', created);
  const key = /id="client-key"[^>]*>([^<]+)</.exec(created.body)![1]!;
  pages.set('app page', await owner.get(`/developer/apps/${key}`));
  pages.set('edit an app', await owner.get(`/developer/apps/${key}/edit`));
  const disabled = await world.temporary(client);
  await world.provider.clients.setDisabled(client.key, true);
  pages.set('error 403 (app disabled)', await owner.get(authorizePath(disabled)));
  await world.provider.clients.setDisabled(client.key, false);
  pages.set('delete confirmation', await owner.get(`/developer/apps/${key}/delete`));
  pages.set('rotate confirmation', await owner.get(`/developer/apps/${key}/secret`));
  pages.set(
    'revoke confirmation',
    await owner.get(`/account/apps/revoke?client_key=${encodeURIComponent(client.key)}`),
  );
  pages.set('error 404 (not your app)', await owner.get('/developer/apps/nope'));
  return pages;
}

/** Inputs a person fills in that no <label> names. */
function unlabelled(html: string): string[] {
  const missing: string[] = [];
  for (const match of html.matchAll(/<(input|select|textarea)\b([^>]*)>/g)) {
    const attributes = match[2]!;
    if (/type="hidden"/.test(attributes)) continue;
    const id = /\bid="([^"]+)"/.exec(attributes)?.[1];
    if (id !== undefined && html.includes(`<label for="${id}"`)) continue;
    const before = html.slice(0, match.index);
    if (before.lastIndexOf('<label') > before.lastIndexOf('</label>')) continue;
    missing.push(match[0]);
  }
  return missing;
}

describe('Quality bar for every page', () => {
  let world: WebWorld;
  let pages: Map<string, LightMyRequestResponse>;
  before(async () => {
    world = await startWeb();
    await world.owner('alice');
    pages = await everyPage(world);
  });
  after(() => world.close());

  it('covers every view there is', () => {
    const views = readdirSync(new URL('../../src/web/views/', import.meta.url))
      .filter((file) => file.endsWith('.eta')) // console/: the operator console's (test/console)
      .map((file) => file.replace(/\.eta$/, ''))
      .filter((view) => view !== 'layout' && !view.startsWith('_')); // _name: a partial
    const rendered = new Set(
      [...pages.values()].map((page) => /<body data-view="([^"]+)">/.exec(page.body)?.[1]),
    );
    assert.deepEqual([...rendered].sort(), views.sort());
  });

  it('serves every page with frame-ancestors none, X-Frame-Options DENY and a CSP without inline script', () => {
    for (const [name, page] of pages) {
      const csp = String(page.headers['content-security-policy']);
      assert.match(csp, /frame-ancestors 'none'/, name);
      assert.match(csp, /script-src 'self'(;|$)/, name);
      assert.doesNotMatch(csp, /unsafe-inline/, name);
      assert.equal(page.headers['x-frame-options'], 'DENY', name);
    }
  });

  it('serves every page as HTML that no shared cache keeps', () => {
    for (const [name, page] of pages) {
      assert.equal(page.headers['content-type'], 'text/html; charset=utf-8', name);
      assert.equal(page.headers['cache-control'], 'no-store', name);
    }
  });

  it('has no inline script, inline style or event-handler attribute on any page', () => {
    for (const [name, page] of pages) {
      assert.doesNotMatch(page.body, /<script(?![^>]*\ssrc=)[^>]*>/, name);
      assert.doesNotMatch(page.body, /<style|\sstyle=/, name);
      assert.doesNotMatch(page.body, /\son[a-z]+=/, name);
    }
  });

  it('is readable on a phone: every page declares the viewport and its language', () => {
    for (const [name, page] of pages) {
      assert.match(
        page.body,
        /<meta name="viewport" content="width=device-width, initial-scale=1">/,
        name,
      );
      assert.match(page.body, /<html lang="en">/, name);
    }
  });

  it('labels every input a person fills in', () => {
    for (const [name, page] of pages) assert.deepEqual(unlabelled(page.body), [], name);
  });

  it('puts a CSRF token in every form that posts', () => {
    for (const [name, page] of pages) {
      for (const [form] of page.body.matchAll(/<form method="post"[\s\S]*?<\/form>/g)) {
        assert.match(form, /<input type="hidden" name="_csrf" value="[^"]+">/, name);
      }
    }
  });

  it('answers each error page with its status', () => {
    const statuses = [...pages]
      .filter(([name]) => name.startsWith('error'))
      .map(([name, page]) => [name, page.statusCode]);
    assert.deepEqual(statuses, [
      ['error 400 (link incomplete)', 400],
      ['error 404 (unknown request)', 404],
      ['error 403 (CSRF)', 403],
      ['error 410 (already answered)', 410],
      ['error 403 (app disabled)', 403],
      ['error 404 (not your app)', 404],
    ]);
  });

  it('serves the stylesheet and the script from /static, under the same CSP', async () => {
    for (const path of ['/static/latchkey.css', '/static/copy.js']) {
      const reply = await world.app.inject({ url: path });
      assert.equal(reply.statusCode, 200, path);
      assert.match(String(reply.headers['content-security-policy']), /frame-ancestors 'none'/);
    }
  });

  it('keeps the CSRF token out of any URL (it travels in the form body only)', () => {
    for (const [name, page] of pages) {
      if (!page.body.includes('name="_csrf"')) continue;
      const token = csrfToken(page.body);
      assert.doesNotMatch(
        page.body,
        new RegExp(`[?&]_csrf=${token.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
        name,
      );
    }
  });
});
