// The console's read-only pages: owners found by search, the sealing keys' counts, each
// webhook with its delivery log, and the pages' security headers.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSqliteStore } from '../../src/store/index.ts';
import type { AdminWorld } from '../admin/support.ts';
import { CONSOLE, Visitor, signedIn, startConsole } from './support.ts';

describe('Operator console pages', () => {
  let world: AdminWorld;
  let auditor: Visitor;
  before(async () => {
    world = await startConsole(createSqliteStore({ path: ':memory:' }));
    await world.provider.owners.create('carol', 'correct horse battery');
    await world.provider.owners.create('dave', 'correct horse battery');
    await world.provider.clients.register({ name: 'Keyed app' });
    await world.provider.webhooks.add('http://127.0.0.1:9/hook', ['*'], {
      allowPrivateAddresses: true,
    });
    auditor = await signedIn(world, 'auditor');
  });
  after(() => world?.close());

  it('finds owners by search', async () => {
    const page = await auditor.request('GET', `${CONSOLE}/owners?q=car`);
    assert.equal(page.status, 200);
    assert.match(page.text, /carol/);
    assert.doesNotMatch(page.text, /dave/);
  });

  it('counts the stored secrets per sealing key', async () => {
    const page = await auditor.request('GET', `${CONSOLE}/keys`);
    assert.equal(page.status, 200);
    assert.match(page.text, /<td class="mono">in clear<\/td><td>\d+<\/td>/);
  });

  it('lists each webhook with its delivery log', async () => {
    const page = await auditor.request('GET', `${CONSOLE}/webhooks`);
    assert.equal(page.status, 200);
    assert.match(page.text, /http:\/\/127\.0\.0\.1:9\/hook/);
  });

  it('serves every page unframeable, uncached, without inline script', async () => {
    const visitor = new Visitor(world);
    for (const [who, path] of [
      [visitor, '/signin'],
      ...['/clients', '/owners', '/audit', '/keys', '/webhooks'].map((p) => [auditor, p] as const),
    ] as const) {
      const page = await who.request('GET', `${CONSOLE}${path}`);
      assert.equal(page.status, 200, path);
      assert.match(page.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
      assert.equal(page.headers.get('x-frame-options'), 'DENY');
      assert.equal(page.headers.get('cache-control'), 'no-store');
      assert.doesNotMatch(page.text, /<script(?![^>]*src=)/);
    }
  });
});
